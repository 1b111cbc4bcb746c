/**
 * Records keyed by tool names. Tool names are user data: a tool called `__proto__`,
 * `constructor` or `toString` must read and write like any other, so these records have no
 * prototype (a plain `{}` turns `record.__proto__ = …` into a prototype change, and reads
 * `record.toString` from `Object.prototype`).
 */

/**
 * An empty record with no prototype, optionally filled from `[name, value]` pairs.
 *
 * @example
 * const reasons = nameRecord<ToolReason>()
 * reasons.__proto__ = { score: 1 } // an own entry, as for any other name
 */
export function nameRecord<T>(entries?: Iterable<readonly [string, T]>): Record<string, T> {
  const record = Object.create(null) as Record<string, T>;
  if (entries) for (const [name, value] of entries) record[name] = value;
  return record;
}

/**
 * The entry for `name` when `record` holds it as its own, else undefined: what a record from
 * elsewhere (a plain object) inherits is never an entry.
 *
 * @example
 * ownEntry({}, 'toString') // undefined
 */
export function ownEntry<T>(record: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, name) ? record[name] : undefined;
}

/**
 * A prototype-free copy of a record keyed by tool names (own entries only).
 *
 * @example
 * const copy = copyNameRecord(selection.reasons)
 */
export function copyNameRecord<T>(record: Readonly<Record<string, T>> | undefined): Record<string, T> {
  return nameRecord(record ? (Object.entries(record) as [string, T][]) : undefined);
}
