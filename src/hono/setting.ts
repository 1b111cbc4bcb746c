/**
 * One setting, declared once: its environment variable, its `loopctl serve` flag, how its text
 * is read and bounded, its default and its doc line. The types of the variables and of the
 * options they set, the one environment reader every entry uses (Workers, Node, Deno, the CLI),
 * the bounds, and the settings tables in the docs are all derived from such declarations
 * (`settings.ts` holds them), so a setting cannot be documented, defaulted or bounded twice.
 */
import { ConfigError, httpUrlVar, varText } from './config-vars.js';

/** Which docs table lists a setting: docs/worker.md's and/or docs/proxy.md's "Configuration". */
export type SettingDoc = 'worker' | 'proxy';

/** How a setting's text is read: the parse (throws {@link ConfigError}) and its bound, for the docs. */
export interface SettingKind<T> {
  /** Reads the trimmed, non-blank text of `variable`; undefined sets nothing. */
  readonly parse: (text: string, variable: string) => T | undefined;
  /** What values are accepted, as the docs table shows it (e.g. `1..64`). */
  readonly bound: string;
  /** Whether a value set in code (not read from text) is within the bound. */
  readonly accepts?: (value: unknown) => boolean;
  /** The bound in words after "must be", for a refusal (e.g. `an integer from 1 to 64`). */
  readonly says?: string;
}

/** One setting's declaration. */
export interface Setting<T = unknown, V extends string = string> extends SettingKind<T> {
  /** The environment variable (Workers `[vars]` or a secret; Deno and Node environment). */
  readonly variable: V;
  /** The `loopctl serve` flag that sets the variable, when there is one. */
  readonly flag?: string;
  /** The value code uses when the setting is unset, where that is one fixed value. */
  readonly default?: T;
  /** The default as the docs say it, where it is not one fixed value (or needs a word). */
  readonly defaultDoc?: string;
  /** One line for the docs table. */
  readonly doc: string;
  /** A secret (`wrangler secret put`): never printed. */
  readonly secret?: boolean;
  /** The docs tables that list it. */
  readonly docs: readonly SettingDoc[];
}

/** Settings by the option key each sets. */
export type SettingTable = Readonly<Record<string, Setting<unknown, string>>>;

/** The value a setting's text parses to. */
export type SettingValue<S> = S extends { parse: (...args: never[]) => infer V } ? Exclude<V, undefined> : never;

/** The variables a table reads, each an optional string: `{ PROXY_K?: string, … }`. */
export type SettingVars<T extends SettingTable> = { [K in keyof T as T[K]['variable']]?: string };

/** The options a table's variables set, each optional: `{ k?: number, … }`. */
export type SettingValues<T extends SettingTable> = { -readonly [K in keyof T]?: SettingValue<T[K]> };

/** A table's fixed defaults, each present: `{ k: number, … }` (settings without one are absent). */
export type SettingDefaults<T extends SettingTable> = {
  -readonly [K in keyof T as T[K] extends { default: unknown } ? K : never]: SettingValue<T[K]>;
};

/**
 * Declare a setting, keeping its literal types (the variable's name, whether it has a default),
 * so {@link SettingVars} and {@link SettingDefaults} can name them; its default must be a value
 * its parser returns.
 *
 * @example
 * const k = setting({ variable: 'PROXY_K', ...integer({ min: 1, max: 64, digits: 3 }), default: 8, doc: 'Tools kept', docs: ['proxy'] })
 */
export function setting<const S extends Setting<unknown, string>>(
  declaration: S & { readonly default?: SettingValue<S> },
): S {
  return declaration;
}

/**
 * Read a table's variables: each set (non-blank) one, trimmed and parsed; unset ones are absent
 * (no key set to undefined, so callers can spread the result under their own options). Throws
 * {@link ConfigError} naming the first variable with a bad value.
 *
 * @example
 * readSettings(PROXY_SETTINGS, { PROXY_K: ' 6 ', PROXY_AUTH: '' }) // { k: 6 }
 */
export function readSettings<T extends SettingTable>(table: T, vars: object): SettingValues<T> {
  const values: Record<string, unknown> = {};
  for (const [key, declared] of Object.entries(table)) {
    // `vars` may be a Workers env, bindings and all: only the declared names are read, as text.
    const raw = (vars as Record<string, unknown>)[declared.variable];
    const text = varText(typeof raw === 'string' ? raw : undefined);
    const value = text === undefined ? undefined : declared.parse(text, declared.variable);
    if (value !== undefined) values[key] = value;
  }
  return values as SettingValues<T>;
}

/**
 * The fixed defaults of a table, by option key (settings whose default depends on others are
 * absent): what code merges options over.
 *
 * @example
 * settingDefaults(PROXY_SETTINGS).k // 8
 */
export function settingDefaults<T extends SettingTable>(table: T): SettingDefaults<T> {
  return Object.fromEntries(
    Object.entries(table).flatMap(([key, declared]) =>
      declared.default === undefined ? [] : [[key, declared.default]],
    ),
  ) as SettingDefaults<T>;
}

/**
 * Free text, trimmed.
 *
 * @example
 * setting({ variable: 'MODEL_NAME', ...text(), doc: 'The model', docs: ['worker'] })
 */
export function text(): SettingKind<string> {
  return { parse: (value) => value, bound: 'text' };
}

/**
 * An http(s) URL.
 *
 * @example
 * httpUrl().parse('ftp://x', 'MODEL_BASE_URL') // throws ConfigError('MODEL_BASE_URL must be an http(s) URL')
 */
export function httpUrl(): SettingKind<string> {
  return { parse: (value, variable) => httpUrlVar(variable, value), bound: 'http(s) URL' };
}

/**
 * One of a few words. `says` words the refusal where the default wording (`"a" or "b"`, or
 * `one of a, b, c`) is not the one operators know; `echo` is how much of a bad value it repeats.
 *
 * @example
 * choice(['token', 'passthrough']).parse('x', 'PROXY_AUTH') // throws 'PROXY_AUTH must be "token" or "passthrough", got "x"'
 */
export function choice<const C extends string>(
  values: readonly C[],
  says = values.length === 2 ? `"${values[0]}" or "${values[1]}"` : `one of ${values.join(', ')}`,
  echo = 20,
): SettingKind<C> {
  return {
    parse(value, variable) {
      if (!(values as readonly string[]).includes(value))
        throw new ConfigError(`${variable} must be ${says}, got "${value.slice(0, echo)}"`);
      return value as C;
    },
    bound: values.map((value) => `\`${value}\``).join(', '),
  };
}

/** The bounds of an {@link integer} setting. */
export interface IntegerBounds {
  /** The least value (0 aside, with `zero`). */
  readonly min: number;
  /** The greatest value, where there is one beyond `digits`. */
  readonly max?: number;
  /** The most digits the text may have: what caps a setting with no `max`. */
  readonly digits: number;
  /** `0` is accepted too, meaning "off" or "never" (`min` is then the least other value). */
  readonly zero?: string;
  /** The refusal's wording after "must be" (default from the bounds). */
  readonly says?: string;
  /** Whether the refusal repeats the bad value. */
  readonly echo?: boolean;
}

/**
 * A whole number within bounds, in decimal digits.
 *
 * @example
 * integer({ min: 1, max: 64, digits: 3 }).parse('65', 'PROXY_K') // throws 'PROXY_K must be an integer from 1 to 64'
 */
export function integer(bounds: IntegerBounds): SettingKind<number> {
  const { min, max, digits, zero, echo } = bounds;
  const says =
    bounds.says ??
    (max !== undefined
      ? `an integer from ${min} to ${max}`
      : min === 1
        ? 'a positive integer'
        : `an integer of at least ${min}`);
  const pattern = new RegExp(`^\\d{1,${digits}}$`);
  const accepts = (n: unknown): boolean =>
    Number.isSafeInteger(n) &&
    (((n as number) >= min && (max === undefined || (n as number) <= max)) || (zero !== undefined && n === 0));
  return {
    accepts,
    says,
    parse(value, variable) {
      const n = Number(value);
      if (!pattern.test(value) || !accepts(n))
        throw new ConfigError(`${variable} must be ${says}${echo ? `, got "${value.slice(0, 20)}"` : ''}`);
      return n;
    },
    bound: `${max !== undefined ? `${min}..${max}` : `≥ ${min}`}${zero !== undefined ? `, or \`0\` (${zero})` : ''}`,
  };
}

/**
 * Milliseconds: an {@link integer} worded as a duration.
 *
 * @example
 * milliseconds({ min: 100 }).parse('0', 'PROXY_KEEPALIVE_MS') // throws '… must be an integer number of milliseconds of at least 100'
 */
export function milliseconds(bounds: { min: number; zero?: string }): SettingKind<number> {
  const least = bounds.min > 0 ? ` of at least ${bounds.min}` : '';
  return integer({ ...bounds, digits: 9, says: `an integer number of milliseconds${least}` });
}

/**
 * A comma-separated list, each item trimmed (and lower-cased with `lower`); blank items dropped,
 * an empty list unset. `item` refuses an item with the words after "must".
 *
 * @example
 * list().parse('https://a.example, https://b.example', 'CORS_ORIGINS') // ['https://a.example', 'https://b.example']
 */
export function list(
  options: { lower?: boolean; item?: RegExp; says?: string; bound?: string } = {},
): SettingKind<readonly string[]> {
  return {
    parse(value, variable) {
      const items = value
        .split(',')
        .map((item) => (options.lower ? item.trim().toLowerCase() : item.trim()))
        .filter(Boolean);
      const bad = options.item ? items.find((item) => !options.item?.test(item)) : undefined;
      if (bad !== undefined) throw new ConfigError(`${variable} must ${options.says}, got "${bad.slice(0, 40)}"`);
      return items.length > 0 ? items : undefined;
    },
    bound: options.bound ?? 'comma-separated',
  };
}
