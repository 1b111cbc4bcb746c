import { mergeOptions } from '../options.js';

/**
 * What a retry is about to do, for logging and loop events.
 *
 * @example
 * const onRetry = (info: RetryInfo) => console.warn(`attempt ${info.attempt} failed, waiting ${info.delayMs} ms`)
 */
export interface RetryInfo {
  /** The attempt that just failed, from 1. */
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: unknown;
}

/**
 * Bounded retry with exponential backoff. An error is retried when it says so
 * (`error.retryable === true`, as every retryable `ModelError` does); its `retryAfterMs`,
 * when present, replaces the backoff. Every wait is capped at `maxDelayMs`.
 *
 * @example
 * const client = openAIChatClient({ model, retry: { maxAttempts: 5, maxDelayMs: 10_000 } })
 */
export interface RetryOptions {
  /** Attempts in total, the first included. 1 disables retrying. */
  readonly maxAttempts?: number;
  /** Backoff before the second attempt; doubles each time. */
  readonly baseDelayMs?: number;
  /** Ceiling on any single wait, `Retry-After` included. */
  readonly maxDelayMs?: number;
  /** Fraction of each backoff randomised away (0 = exact), so clients do not retry in step. */
  readonly jitter?: number;
  readonly onRetry?: (info: RetryInfo) => void;
  /** Source of randomness for jitter, replaceable for deterministic tests. */
  readonly random?: () => number;
}

/**
 * The defaults {@link withRetry} fills in under the caller's options (an option set to `undefined` keeps its default).
 *
 * @example
 * const patient = { ...defaultRetryOptions, maxAttempts: 6 }
 */
export const defaultRetryOptions = {
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  jitter: 0.2,
} as const satisfies RetryOptions;

/**
 * True for statuses worth retrying: 408, 429 and 5xx. Other 4xx mean the request itself is
 * wrong and would fail the same way again.
 *
 * @example
 * isRetryableStatus(429) // true
 * isRetryableStatus(400) // false
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * Parse a `Retry-After` value (delay in seconds, or an HTTP date) into milliseconds from
 * `now`. Undefined when absent or unparsable; a date in the past gives 0.
 *
 * @example
 * parseRetryAfter('2')                              // 2000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')  // ms until then, or 0
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // HTTP dates start with a day name; this also keeps Date.parse from reading '-1' as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * The wait a response asks for: `retry-after-ms` (sent by some OpenAI-compatible servers)
 * first, then `Retry-After`.
 *
 * @example
 * retryAfterFromHeaders(new Headers({ 'retry-after': '1' })) // 1000
 */
export function retryAfterFromHeaders(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  return parseRetryAfter(headers.get('retry-after'), now);
}

/**
 * The backoff before attempt `failedAttempt + 1`: `baseDelayMs * 2^(failedAttempt-1)`,
 * jittered down by up to `jitter`, capped at `maxDelayMs`.
 *
 * @example
 * backoffDelay(1, { baseDelayMs: 100, jitter: 0 }) // 100
 * backoffDelay(3, { baseDelayMs: 100, jitter: 0 }) // 400
 */
export function backoffDelay(failedAttempt: number, options: RetryOptions = {}): number {
  const { baseDelayMs, maxDelayMs, jitter, random = Math.random } = mergeOptions(defaultRetryOptions, options);
  const exponential = baseDelayMs * 2 ** Math.max(0, failedAttempt - 1);
  const jittered = exponential * (1 - Math.min(1, Math.max(0, jitter)) * random());
  return Math.round(Math.min(maxDelayMs, jittered));
}

/**
 * Wait `ms`, rejecting with the signal's reason as soon as it aborts.
 *
 * @example
 * await sleep(250, controller.signal)
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Run `operation` until it succeeds, fails with a non-retryable error, or `maxAttempts` is
 * reached (the last error is thrown as is). Aborting `signal` stops at once with its reason.
 *
 * @example
 * const response = await withRetry((attempt) => send(body), { maxAttempts: 3, signal })
 */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions & { readonly signal?: AbortSignal } = {},
): Promise<T> {
  const settings = mergeOptions(defaultRetryOptions, options);
  const { signal } = options;
  const maxAttempts = Math.max(1, Math.floor(settings.maxAttempts));
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await operation(attempt);
    } catch (error) {
      signal?.throwIfAborted();
      if (attempt >= maxAttempts || !isRetryable(error)) throw error;
      const asked = requestedDelay(error);
      const delayMs = Math.min(settings.maxDelayMs, asked ?? backoffDelay(attempt, settings));
      settings.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs, signal);
    }
  }
}

function isRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
}

function requestedDelay(error: unknown): number | undefined {
  const value = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
