/**
 * Records keyed by tool names. Tool names are user data: a tool called `__proto__`,
 * `constructor` or `toString` must read and write like any other, so these records have no
 * prototype (a plain `{}` turns `record.__proto__ = …` into a prototype change, and reads
 * `record.toString` from `Object.prototype`).
 */

/**
 * An empty record with no prototype.
 *
 * @example
 * const reasons = nameRecord<ToolReason>()
 * reasons.__proto__ = { score: 1 } // an own entry, as for any other name
 */
export function nameRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/**
 * The entry for `name` when `record` holds it as its own, else undefined: what a record from
 * elsewhere (a plain object) inherits is never an entry.
 *
 * @example
 * ownEntry({}, 'toString') // undefined
 */
export function ownEntry<T>(record: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return record && Object.hasOwn(record, name) ? record[name] : undefined;
}

/**
 * A prototype-free copy of a record keyed by tool names (own enumerable entries only; a
 * `__proto__` entry stays an entry).
 *
 * @example
 * const copy = copyNameRecord(selection.reasons)
 */
export function copyNameRecord<T>(record: Readonly<Record<string, T>> | undefined): Record<string, T> {
  return Object.assign(nameRecord<T>(), record);
}
