import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  isRetryableStatus,
  parseRetryAfter,
  type RetryInfo,
  retryAfterFromHeaders,
  sleep,
  withRetry,
} from '../../src/model/retry.js';

class Flaky extends Error {
  constructor(
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super('flaky');
  }
}

describe('isRetryableStatus', () => {
  it('retries 408, 429 and 5xx only', () => {
    expect([408, 429, 500, 502, 503, 529].every(isRetryableStatus)).toBe(true);
    expect([200, 400, 401, 403, 404, 409, 413, 422].some(isRetryableStatus)).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds, fractional seconds and HTTP dates', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0.25 ', now)).toBe(250);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
  });

  it('ignores absent or garbage values', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-1')).toBeUndefined();
  });

  it('prefers retry-after-ms over Retry-After', () => {
    expect(retryAfterFromHeaders(new Headers({ 'retry-after-ms': '120', 'retry-after': '9' }))).toBe(120);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterFromHeaders(new Headers())).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('doubles from the base and stays under the cap', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, { baseDelayMs: 100, jitter: 0 }))).toEqual([100, 200, 400, 800]);
    expect(backoffDelay(20, { baseDelayMs: 100, maxDelayMs: 1000, jitter: 0 })).toBe(1000);
  });

  it('jitters down by at most the jitter fraction', () => {
    expect(backoffDelay(1, { baseDelayMs: 1000, jitter: 0.5, random: () => 1 })).toBe(500);
    expect(backoffDelay(1, { baseDelayMs: 1000, jitter: 0.5, random: () => 0 })).toBe(1000);
  });
});

describe('withRetry', () => {
  it('retries retryable failures and returns the first success', async () => {
    const retries: RetryInfo[] = [];
    let calls = 0;
    const result = await withRetry(
      async (attempt) => {
        calls++;
        if (attempt < 3) throw new Flaky(true);
        return 'ok';
      },
      { baseDelayMs: 1, jitter: 0, onRetry: (info) => retries.push(info) },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(3);
    expect(retries.map((r) => [r.attempt, r.delayMs])).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('throws the last error after maxAttempts', async () => {
    let calls = 0;
    const last = new Flaky(true);
    await expect(
      withRetry(
        async () => {
          calls++;
          throw calls === 2 ? last : new Flaky(true);
        },
        { maxAttempts: 2, baseDelayMs: 1 },
      ),
    ).rejects.toBe(last);
    expect(calls).toBe(2);
  });

  it('never retries a non-retryable error', async () => {
    let calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw new Flaky(false);
      }),
    ).rejects.toBeInstanceOf(Flaky);
    expect(calls).toBe(1);
  });

  it('waits what retryAfterMs asks, capped at maxDelayMs', async () => {
    const delays: number[] = [];
    let calls = 0;
    await withRetry(
      async () => {
        if (++calls === 1) throw new Flaky(true, 60_000);
        if (calls === 2) throw new Flaky(true, 5);
        return 'ok';
      },
      { maxDelayMs: 20, onRetry: (info) => delays.push(info.delayMs) },
    );
    expect(delays).toEqual([20, 5]);
  });

  it('stops a backoff sleep promptly on abort, with the signal reason', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const run = withRetry(
      async () => {
        throw new Flaky(true);
      },
      { baseDelayMs: 10_000, jitter: 0, signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 20);
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('does not start when already aborted', async () => {
    let calls = 0;
    const reason = new Error('stop');
    await expect(
      withRetry(
        async () => {
          calls++;
        },
        { signal: AbortSignal.abort(reason) },
      ),
    ).rejects.toBe(reason);
    expect(calls).toBe(0);
  });
});

describe('sleep', () => {
  it('resolves after the delay and rejects on abort', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
    const controller = new AbortController();
    const pending = sleep(10_000, controller.signal);
    controller.abort(new Error('bye'));
    await expect(pending).rejects.toThrow('bye');
  });
});

describe('retry options set to undefined', () => {
  it('keeps the default attempts and delays', async () => {
    let attempts = 0;
    const delays: number[] = [];
    const run = withRetry(
      async () => {
        attempts++;
        if (attempts > 10) throw new Error('kept retrying');
        throw Object.assign(new Error('busy'), { retryable: true, retryAfterMs: 1 });
      },
      { maxAttempts: undefined, maxDelayMs: undefined, onRetry: (info) => delays.push(info.delayMs) },
    );
    await expect(run).rejects.toThrow('busy');
    expect(attempts).toBe(3);
    expect(delays).toEqual([1, 1]);
    expect(backoffDelay(2, { baseDelayMs: undefined, jitter: 0 })).toBe(1000);
  });
});
