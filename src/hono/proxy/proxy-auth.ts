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
import type { TokenCheck } from '../../../worker/bearer-auth.js';
import { bearerToken } from '../../../worker/bearer-auth.js';

/** How the proxy authenticates. */
export type ProxyAuthMode = 'token' | 'passthrough';

/** The outcome of checking one request. */
export type AuthOutcome = 'ok' | 'unauthorized' | 'not_configured';

/**
 * Check a request in `token` mode against `check` (undefined: no token configured, closed).
 * `passthrough` always admits: the upstream checks the client's own key.
 *
 * @example
 * if ((await authorize(request, 'token', tokenCheck(env.LOOPCTL_TOKEN))) !== 'ok') return unauthorized()
 */
export async function authorize(request: Request, mode: ProxyAuthMode, check: TokenCheck | undefined): Promise<AuthOutcome> {
  if (mode === 'passthrough') return 'ok';
  if (!check) return 'not_configured';
  const presented = bearerToken(request) ?? request.headers.get('x-api-key')?.trim();
  if (!presented) return 'unauthorized';
  return (await check.verify(presented)) ? 'ok' : 'unauthorized';
}
