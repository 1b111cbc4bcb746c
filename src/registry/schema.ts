/** A JSON Schema object (draft 2020-12 or earlier), as tools describe their arguments. */
export type JsonSchema = { [key: string]: unknown };

/**
 * What the model sees of a tool: its name, a description, and a JSON Schema for its
 * arguments. Selectors receive and return these; a selection may only hold members of the
 * registry's list.
 *
 * @example
 * const weather: ToolSchema = {
 *   name: 'get_weather',
 *   description: 'Current weather for a city.',
 *   parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
 * }
 */
export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

/** Deterministic JSON (object keys sorted) so equal schemas give equal text. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.keys(value as object)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${stableStringify((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** True when two schemas have the same name, description and parameters. */
export function sameSchema(a: ToolSchema, b: ToolSchema): boolean {
  return (
    a === b ||
    (a.name === b.name &&
      a.description === b.description &&
      stableStringify(a.parameters) === stableStringify(b.parameters))
  );
}
