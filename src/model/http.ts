import { errorMessage } from '../describe-error.js';
import { ModelError, ModelHttpError, ModelNetworkError, ModelStreamError, type Provider } from './client.js';
import { isRetryableStatus, type RetryOptions, retryAfterFromHeaders, withRetry } from './retry.js';

/**
 * The `fetch` a client calls. Defaults to the global one, called unbound-safe (browsers and
 * Workers throw "Illegal invocation" on a detached `fetch`).
 *
 * @example
 * const logged: FetchLike = (url, init) => { console.log(url); return fetch(url, init) }
 */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/**
 * The global `fetch`, looked up at call time.
 *
 * @example
 * await globalFetch('http://127.0.0.1:11434/v1/models', { method: 'GET' })
 */
export const globalFetch: FetchLike = (input, init) => globalThis.fetch(input, init);

/** `{baseURL}{path}`, whatever trailing slashes the base URL carries. */
export function endpointURL(baseURL: string, path: string): string {
  return `${baseURL.replace(/\/+$/, '')}${path}`;
}

/** Every wire client's request headers: JSON in, SSE or JSON out, its credentials, then the user's own. */
export function jsonRequestHeaders(
  streaming: boolean,
  credentials: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: streaming ? 'text/event-stream' : 'application/json',
    ...credentials,
    ...extra,
  };
}

/**
 * POST a JSON body with bounded retries. Resolves with a 2xx response; rejects with a
 * {@link ModelHttpError} (status, provider message, `Retry-After`), a
 * {@link ModelNetworkError}, or the signal's reason.
 *
 * @example
 * const response = await postModelRequest({
 *   provider: 'openai', fetch: globalFetch, url, headers, body, signal, retry: {},
 * })
 */
export function postModelRequest(init: {
  readonly provider: Provider;
  readonly fetch: FetchLike;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly signal?: AbortSignal;
  readonly retry?: RetryOptions;
}): Promise<Response> {
  const { provider, fetch, url, headers, body, signal } = init;
  return withRetry(
    async () => {
      let response: Response;
      try {
        response = await fetch(url, { method: 'POST', headers, body, signal });
      } catch (error) {
        signal?.throwIfAborted();
        throw new ModelNetworkError(provider, error);
      }
      if (!response.ok) throw await httpErrorFromResponse(provider, response, signal);
      return response;
    },
    { ...init.retry, signal },
  );
}

/**
 * Turn a non-2xx response into a {@link ModelHttpError}, reading the provider's message from
 * the JSON error body (`{error: {message, type}}` for OpenAI, `{type: 'error', error: {...}}`
 * for Anthropic, `{error: 'text'}` for Ollama). An `x-should-retry` header overrides the
 * status-based retry decision, as the providers intend.
 *
 * @example
 * if (!response.ok) throw await httpErrorFromResponse('anthropic', response)
 */
export async function httpErrorFromResponse(
  provider: Provider,
  response: Response,
  signal?: AbortSignal,
): Promise<ModelHttpError> {
  const body = await response.text().catch(() => {
    signal?.throwIfAborted();
    return '';
  });
  const { message, type } = extractProviderError(body);
  const shouldRetry = response.headers.get('x-should-retry');
  const retryable =
    shouldRetry === 'true' ? true : shouldRetry === 'false' ? false : isRetryableStatus(response.status);
  const retryAfterMs = retryAfterFromHeaders(response.headers);
  return new ModelHttpError({
    provider,
    status: response.status,
    body,
    retryable,
    providerMessage: message,
    errorType: type,
    retryAfterMs,
  });
}

/**
 * The message and type from a provider's JSON error body, when it has them.
 *
 * @example
 * extractProviderError('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')
 * // { message: 'Overloaded', type: 'overloaded_error' }
 */
export function extractProviderError(body: string): { message?: string; type?: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return {};
  }
  if (!isRecord(json)) return {};
  const error = json.error;
  if (typeof error === 'string') return { message: error };
  const source = isRecord(error) ? error : json;
  const message = firstString(source.message, source.detail, json.message, json.detail);
  const type = firstString(source.type, source.code);
  return { ...(message !== undefined ? { message } : {}), ...(type !== undefined ? { type } : {}) };
}

/**
 * One SSE `data` payload as a JSON object, or a {@link ModelStreamError} quoting its start
 * (`what` names the protocol's unit: a Messages "event", a Chat Completions "chunk").
 *
 * @example
 * const event = parseStreamEvent('anthropic', data, 'event')
 */
export function parseStreamEvent(provider: Provider, data: string, what: 'event' | 'chunk'): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    throw new ModelStreamError(provider, `malformed stream ${what}: ${data.slice(0, 200)}`, { cause: error });
  }
  if (!isRecord(value)) throw new ModelStreamError(provider, `unexpected stream ${what}: ${data.slice(0, 200)}`);
  return value;
}

/**
 * Read a successful response as JSON, wrapping failures as {@link ModelStreamError}.
 *
 * @example
 * const json = await readJson('openai', response, signal)
 */
export async function readJson(provider: Provider, response: Response, signal?: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    signal?.throwIfAborted();
    throw new ModelStreamError(provider, 'response body could not be read', { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ModelStreamError(provider, `response is not JSON: ${text.slice(0, 200)}`, { cause: error });
  }
}

/**
 * Normalise a failure while reading a stream: the signal's reason when aborted, a
 * {@link ModelError} as is, anything else (a cut connection) as a {@link ModelStreamError}.
 *
 * @example
 * catch (error) { throw streamFailure('anthropic', error, signal) }
 */
export function streamFailure(provider: Provider, error: unknown, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  if (error instanceof ModelError) return error;
  const detail = errorMessage(error);
  return new ModelStreamError(provider, `stream interrupted: ${detail}`, { cause: error });
}

/**
 * True for a plain JSON object.
 *
 * @example
 * isRecord({}) // true
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === 'string' && value !== '') return value;
  return undefined;
}

/**
 * JSON text as an object: `{}` when it is not JSON or not an object (a call's arguments, as a
 * protocol that wants an object receives them).
 *
 * @example
 * parseJsonObject('{"city":"Oslo"}') // { city: 'Oslo' }
 * parseJsonObject('not json')        // {}
 */
export function parseJsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}
