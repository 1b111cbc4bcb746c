/**
 * Headers across the proxy. Upstream gets the client's headers (`anthropic-version`,
 * `anthropic-beta`, `openai-organization`, SDK telemetry, `user-agent`…) minus hop-by-hop
 * headers, the proxy's own controls, client network details, and (in token mode) the
 * client's credentials, replaced by the server's key. The client gets the upstream's headers
 * (`retry-after`, rate-limit and request-id headers included) minus hop-by-hop headers and the
 * encoding headers `fetch` already undid.
 */
import type { ProxyAuthMode } from './proxy-auth.js';
import type { WireProtocol } from './proxy-types.js';

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

// Recomputed by fetch, or describing the client's connection rather than the request.
const REQUEST_DROPPED = new Set([
  ...HOP_BY_HOP,
  'host',
  'content-length',
  'accept-encoding',
  'cookie',
  'proxy-authorization',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'true-client-ip',
]);

const CREDENTIALS = new Set(['authorization', 'x-api-key', 'api-key']);

// fetch has already decoded the body, so its encoding and length no longer apply.
const RESPONSE_DROPPED = new Set([...HOP_BY_HOP, 'content-encoding', 'content-length']);

/**
 * The headers to send upstream.
 *
 * @example
 * upstreamHeaders(c.req.raw.headers, 'anthropic', 'token', env.MODEL_API_KEY)
 */
export function upstreamHeaders(
  incoming: Headers,
  protocol: WireProtocol,
  mode: ProxyAuthMode,
  apiKey: string | undefined,
): Headers {
  const headers = new Headers();
  incoming.forEach((value, name) => {
    if (REQUEST_DROPPED.has(name) || name.startsWith('x-loopctl-') || name.startsWith('cf-')) return;
    if (mode === 'token' && CREDENTIALS.has(name)) return;
    headers.set(name, value);
  });
  if (mode === 'token' && apiKey) {
    if (protocol === 'anthropic') headers.set('x-api-key', apiKey);
    else headers.set('authorization', `Bearer ${apiKey}`);
  }
  return headers;
}

/**
 * The upstream response's headers as the client gets them.
 *
 * @example
 * new Response(upstream.body, { status: upstream.status, headers: clientHeaders(upstream.headers) })
 */
export function clientHeaders(upstream: Headers): Headers {
  const headers = new Headers();
  upstream.forEach((value, name) => {
    if (!RESPONSE_DROPPED.has(name)) headers.append(name, value);
  });
  return headers;
}
