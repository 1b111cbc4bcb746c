/**
 * Headers across the proxy. Upstream gets the client's headers (`anthropic-version`,
 * `anthropic-beta`, SDK telemetry, `user-agent`…) minus hop-by-hop headers, the proxy's own
 * controls, client network details, and (in token mode) the client's credentials and anything
 * credential-like (another vendor's key, the organisation or project to bill), replaced by the
 * server's key: on the server's key, a token holder must not pick whose account pays. In
 * pass-through mode those are the client's own and go upstream. The client gets the upstream's headers
 * (`retry-after`, rate-limit and request-id headers included) minus hop-by-hop headers and the
 * encoding headers `fetch` already undid.
 */
import type { ProxyAuthMode } from './proxy-auth.js';
import type { ProxyUpstream } from './proxy-protocol.js';

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

/**
 * Credential-like names beyond {@link CREDENTIALS}: any `…api-key` or `…apikey` (`x-goog-api-key`),
 * tokens, secrets and auth headers (`x-auth-token`, `x-amz-security-token`), and the headers that
 * choose the account billed (`openai-organization`, `openai-project`, `x-goog-user-project`).
 */
const CREDENTIAL_LIKE =
  /(?:^|-)(?:api-?key|auth|authorization|token|secret|password|organization|project|account)(?:-|$)/;

/** Whether a client header carries or chooses credentials, so stays behind in token mode. */
function isCredential(name: string): boolean {
  return CREDENTIALS.has(name) || CREDENTIAL_LIKE.test(name);
}

// fetch has already decoded the body, so its encoding and length no longer apply.
const RESPONSE_DROPPED = new Set([...HOP_BY_HOP, 'content-encoding', 'content-length']);

/**
 * The headers to send upstream. In `token` mode the client's credential-like headers stay
 * behind and `apiKey` (the key configured for this upstream) is set the upstream's way.
 *
 * @example
 * upstreamHeaders(c.req.raw.headers, anthropicUpstream, 'token', env.MODEL_API_KEY)
 */
export function upstreamHeaders(
  incoming: Headers,
  upstream: Pick<ProxyUpstream, 'authorize'>,
  mode: ProxyAuthMode,
  apiKey: string | undefined,
): Headers {
  const headers = new Headers();
  incoming.forEach((value, name) => {
    if (REQUEST_DROPPED.has(name) || name.startsWith('x-loopctl-') || name.startsWith('cf-')) return;
    if (mode === 'token' && isCredential(name)) return;
    headers.set(name, value);
  });
  if (mode === 'token' && apiKey) upstream.authorize(headers, apiKey);
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
