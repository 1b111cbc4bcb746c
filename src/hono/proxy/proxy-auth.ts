/**
 * Who may use the proxy, and which key the upstream sees. Two modes:
 *
 * - `token` (default): the client presents the proxy's own token (`LOOPCTL_TOKEN`), as
 *   `Authorization: Bearer …` (OpenAI clients) or `x-api-key` (Anthropic clients). The client's
 *   credentials are never forwarded; the upstream gets the server's key (`MODEL_API_KEY`).
 * - `passthrough`: no proxy token; the client's `Authorization` / `x-api-key` go upstream
 *   unchanged and the upstream decides. The server holds no model key.
 *
 * Keys are compared in constant time and never logged or echoed.
 */

/** Checks a presented token in constant time (the app's bearer-token checker). */
export interface TokenVerifier {
  verify(presented: string): Promise<boolean>;
}

/** How the proxy authenticates. */
export type ProxyAuthMode = 'token' | 'passthrough';

/** The outcome of checking one request. */
export type AuthOutcome = 'ok' | 'unauthorized' | 'not_configured';

/**
 * Check a request in `token` mode against `check` (undefined: no token configured, closed).
 * `passthrough` always admits: the upstream checks the client's own key.
 *
 * @example
 * if ((await authorize(request, 'token', tokenVerifier(env.LOOPCTL_TOKEN))) !== 'ok') return unauthorized()
 */
export async function authorize(
  request: Request,
  mode: ProxyAuthMode,
  check: TokenVerifier | undefined,
): Promise<AuthOutcome> {
  if (mode === 'passthrough') return 'ok';
  if (!check) return 'not_configured';
  const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
  const presented = bearer ?? request.headers.get('x-api-key')?.trim();
  if (!presented) return 'unauthorized';
  return (await check.verify(presented)) ? 'ok' : 'unauthorized';
}

/**
 * The proxy token check: a constant-time comparison whose running time depends only on the
 * configured token's length, never on what was presented (how much of it matches, or its
 * length). It needs no digest, so no asynchronous crypto job per request.
 *
 * @example
 * const check = tokenVerifier(env.LOOPCTL_TOKEN)
 * await check.verify('wrong') // false
 */
export function tokenVerifier(token: string): TokenVerifier {
  return { verify: async (presented) => equalInConstantTime(token, presented) };
}

function equalInConstantTime(secret: string, presented: string): boolean {
  let difference = secret.length ^ presented.length;
  // Past its end, a shorter presented token reads as 0 (NaN | 0), so the loop never exits early.
  for (let i = 0; i < secret.length; i++) difference |= secret.charCodeAt(i) ^ (presented.charCodeAt(i) | 0);
  return difference === 0;
}
