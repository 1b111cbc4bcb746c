/**
 * Errors the proxy itself answers, in the provider's own JSON shape, so a client library
 * raises its usual exception (`BadRequestError`, `AuthenticationError`…):
 *
 * - OpenAI (Chat Completions and Responses): `{"error":{"message","type","param","code"}}`
 * - Anthropic: `{"type":"error","error":{"type","message"}}`
 *
 * Upstream errors never come through here: they pass through unchanged.
 */
import type { WireProtocol } from './proxy-types.js';

/** Statuses the proxy answers by itself. */
export type ProxyErrorStatus = 400 | 401 | 404 | 413 | 500 | 502 | 503 | 504;

const OPENAI_TYPES: Record<ProxyErrorStatus, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  404: 'invalid_request_error',
  413: 'invalid_request_error',
  500: 'server_error',
  502: 'upstream_error',
  503: 'server_error',
  504: 'upstream_error',
};

const ANTHROPIC_TYPES: Record<ProxyErrorStatus, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  404: 'not_found_error',
  413: 'request_too_large',
  500: 'api_error',
  502: 'api_error',
  503: 'api_error',
  504: 'timeout_error',
};

const OPENAI_CODES: Partial<Record<ProxyErrorStatus, string>> = {
  401: 'invalid_api_key',
  413: 'request_too_large',
  502: 'upstream_unreachable',
  503: 'not_configured',
  504: 'upstream_timeout',
};

/**
 * An error response shaped like `protocol`'s API.
 *
 * @example
 * return providerError('anthropic', 400, 'x-loopctl-k must be an integer from 1 to 64')
 */
export function providerError(
  protocol: WireProtocol,
  status: ProxyErrorStatus,
  message: string,
  options: { param?: string; code?: string; headers?: Record<string, string> } = {},
): Response {
  const body =
    protocol === 'anthropic'
      ? { type: 'error', error: { type: ANTHROPIC_TYPES[status], message } }
      : {
          error: {
            message,
            type: OPENAI_TYPES[status],
            param: options.param ?? null,
            code: options.code ?? OPENAI_CODES[status] ?? null,
          },
        };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...options.headers },
  });
}

/**
 * An error as an event in `protocol`'s stream shape, for a failure after the stream's status
 * was sent (a keep-alive had begun): OpenAI `data: {"error":{…}}`, Anthropic `event: error`,
 * Responses `event: error` with a `code`.
 *
 * @example
 * streamError('anthropic', 'timeout_error', 'the upstream sent nothing within 300 s')
 */
export function streamError(protocol: WireProtocol, type: string, message: string): string {
  if (protocol === 'anthropic')
    return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`;
  if (protocol === 'responses')
    return `event: error\ndata: ${JSON.stringify({ type: 'error', code: type, message, param: null, sequence_number: 0 })}\n\n`;
  return `data: ${JSON.stringify({ error: { message, type, param: null, code: type } })}\n\n`;
}
