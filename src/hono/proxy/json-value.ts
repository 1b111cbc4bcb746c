/**
 * The one JSON-object guard the proxy reads request and answer bodies with: every file that
 * walks a parsed body asks the same question the same way.
 */

/** A parsed JSON object. */
export type Json = Record<string, unknown>;

/**
 * Whether `value` is a JSON object (not an array, not null).
 *
 * @example
 * isObject({ a: 1 }) // true
 * isObject([1]) // false
 */
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
