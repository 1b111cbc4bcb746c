/**
 * The project's one options merge. Every `{ ...defaults, ...options }` goes through it, because
 * a spread lets an explicit `undefined` (`baseURL: process.env.UNSET`) replace the default,
 * which type-checks and then fails far from the cause.
 */

/** What {@link mergeOptions} returns: every key of the defaults set, the other options as given. */
export type MergedOptions<D, O> = Omit<O, keyof D> & {
  -readonly [K in keyof D]: D[K] | Exclude<O[K & keyof O], undefined>;
};

/**
 * The defaults, then the options (or two layers of them) over them in order, where a key whose value is
 * `undefined` sets nothing (it keeps the value below it, and is never an own key of the result).
 * Returns a new plain object; a key named `__proto__` stays an ordinary key.
 *
 * @example
 * mergeOptions({ baseURL: 'http://127.0.0.1:11434/v1', retries: 2 }, { baseURL: undefined, retries: 0 })
 * // { baseURL: 'http://127.0.0.1:11434/v1', retries: 0 }
 */
export function mergeOptions<D extends object, O extends object = Partial<D>>(
  defaults: D,
  options?: O,
): MergedOptions<D, O>;
/** Two layers of options, the second over the first. */
export function mergeOptions<D extends object, A extends object, B extends object>(
  defaults: D,
  first: A | undefined,
  second: B | undefined,
): MergedOptions<MergedOptions<D, A>, B>;
export function mergeOptions(...layers: Array<object | undefined>): object {
  return Object.fromEntries(
    layers.flatMap((layer) => Object.entries(layer ?? {}).filter((entry) => entry[1] !== undefined)),
  );
}
