/**
 * Reading configuration variables (Workers `[vars]`, Deno and Node environment variables):
 * the one error a bad value raises and the small readers every variable goes through, for
 * the app's variables and the proxy's alike.
 */

/**
 * A configuration variable holds a value the app cannot use.
 *
 * @example
 * try { optionsFromVars(env) } catch (error) { if (error instanceof ConfigError) console.error(error.message) }
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * A variable's value, trimmed; undefined when unset or blank.
 *
 * @example
 * varText('  8 ') // '8'
 * varText('') // undefined
 */
export function varText(text: string | undefined): string | undefined {
  return text && text.trim() !== '' ? text.trim() : undefined;
}

/**
 * A variable that must be an http(s) URL when set: its value, or a {@link ConfigError} naming it.
 *
 * @example
 * httpUrlVar('MODEL_BASE_URL', env.MODEL_BASE_URL) // 'https://api.openai.com/v1' or undefined
 */
export function httpUrlVar(name: string, text: string | undefined): string | undefined {
  const url = varText(text);
  if (url !== undefined && !/^https?:\/\/[^\s]+$/i.test(url)) throw new ConfigError(`${name} must be an http(s) URL`);
  return url;
}
