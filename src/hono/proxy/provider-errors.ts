/**
 * Errors the proxy itself answers, in the provider's own JSON shape, so a client library
 * raises its usual exception (`BadRequestError`, `AuthenticationError`…):
 *
 * - OpenAI (Chat Completions and Responses): `{"error":{"message","type","param","code"}}`
 * - Anthropic: `{"type":"error","error":{"type","message"}}`
 *
 * Upstream errors never come through here: they pass through unchanged but for the server's keys,
 * which are redacted (`redacted-error.ts`).
 */
import type { ErrorDetail, ProxyErrorStatus, ProxyProtocol } from './proxy-protocol.js';

export type { ProxyErrorStatus } from './proxy-protocol.js';

const OPENAI_TYPES: Record<ProxyErrorStatus, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'invalid_request_error',
  404: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  500: 'server_error',
  502: 'upstream_error',
  503: 'server_error',
  504: 'upstream_error',
};

const ANTHROPIC_TYPES: Record<ProxyErrorStatus, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  415: 'invalid_request_error',
  500: 'api_error',
  502: 'api_error',
  503: 'api_error',
  504: 'timeout_error',
};

const OPENAI_CODES: Partial<Record<ProxyErrorStatus, string>> = {
  401: 'invalid_api_key',
  413: 'request_too_large',
  415: 'unsupported_media_type',
  502: 'upstream_unreachable',
  503: 'not_configured',
  504: 'upstream_timeout',
};

/**
 * OpenAI's error body (Chat Completions and Responses): `{"error":{"message","type","param","code"}}`.
 *
 * @example
 * openAIErrorBody(401, 'a valid proxy token is required', {}) // { error: { type: 'invalid_request_error', code: 'invalid_api_key', … } }
 */
export function openAIErrorBody(status: ProxyErrorStatus, message: string, detail: ErrorDetail): unknown {
  return {
    error: {
      message,
      type: OPENAI_TYPES[status],
      param: detail.param ?? null,
      code: detail.code ?? OPENAI_CODES[status] ?? null,
    },
  };
}

/**
 * Anthropic's error body: `{"type":"error","error":{"type","message"}}`.
 *
 * @example
 * anthropicErrorBody(504, 'the upstream sent nothing', {}) // { type: 'error', error: { type: 'timeout_error', … } }
 */
export function anthropicErrorBody(status: ProxyErrorStatus, message: string, _detail: ErrorDetail): unknown {
  return { type: 'error', error: { type: ANTHROPIC_TYPES[status], message } };
}

/**
 * An error response shaped like `protocol`'s API.
 *
 * @example
 * return providerError(anthropicMessages, 400, 'x-loopctl-k must be an integer from 1 to 64')
 */
export function providerError(
  protocol: Pick<ProxyProtocol, 'errorBody'>,
  status: ProxyErrorStatus,
  message: string,
  options: { param?: string; headers?: Record<string, string>; code?: string } = {},
): Response {
  const { headers, ...detail } = options;
  return new Response(JSON.stringify(protocol.errorBody(status, message, detail)), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
