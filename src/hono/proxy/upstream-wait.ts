/**
 * Waiting for the upstream, bounded: a first-byte timeout (no answer within it is a 504 in the
 * provider's shape, or an error event once a stream has begun) and, for event streams, SSE
 * keep-alive comments while the client waits, so the client, and every proxy and load balancer
 * between, sees bytes on a slow upstream (a long prompt, a cold model) and keeps the connection.
 */

import { abortWith } from '../../limits/abort-with.js';

/** The upstream sent nothing within the first-byte timeout. */
export class FirstByteTimeout extends Error {
  override name = 'FirstByteTimeout';
  constructor(readonly ms: number) {
    super(`the upstream sent nothing within ${Math.round(ms / 1000)} s`);
  }
}

/**
 * Call the upstream; reject with {@link FirstByteTimeout} when its answer (status and headers)
 * has not begun within `ms` (0: no limit). The request is aborted then, and whenever `signal`
 * aborts (the client left).
 *
 * @example
 * const response = await firstByteWithin(300_000, signal, (s) => fetch(url, { ...init, signal: s }))
 */
export async function firstByteWithin(
  ms: number,
  signal: AbortSignal,
  call: (signal: AbortSignal) => Promise<Response>,
): Promise<Response> {
  const controller = new AbortController();
  abortWith(signal, controller);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const timeout =
    ms > 0
      ? new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            timedOut = true;
            const error = new FirstByteTimeout(ms);
            controller.abort(error);
            reject(error);
          }, ms);
        })
      : undefined;
  try {
    const pending = call(controller.signal);
    return await (timeout ? Promise.race([pending, timeout]) : pending);
  } catch (error) {
    if (timedOut) throw new FirstByteTimeout(ms);
    throw error;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    // After the answer began the request stays linked to the client (the body may still be streaming).
  }
}

/**
 * What `promise` settled to, or `'waiting'` when `ms` passed first.
 *
 * @example
 * const early = await settledWithin(pending, 10_000) // 'waiting' → start the keep-alive
 */
export async function settledWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ readonly value: T } | { readonly error: unknown } | 'waiting'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waiting = new Promise<'waiting'>((done) => {
    timer = setTimeout(() => done('waiting'), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      waiting,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Yield `'tick'` every `everyMs` until `promise` settles, then return what it resolved to
 * (or throw what it rejected with).
 *
 * @example
 * const response = yield* keepAliveTicks(pending, 10_000) // the caller writes a comment per tick
 */
export async function* ticksUntil<T>(promise: Promise<T>, everyMs: number): AsyncGenerator<'tick', T> {
  const settled = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  while (true) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = new Promise<'tick'>((done) => {
      timer = setTimeout(() => done('tick'), everyMs);
    });
    const outcome = await Promise.race([settled, tick]);
    clearTimeout(timer);
    if (outcome === 'tick') {
      yield 'tick';
      continue;
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }
}
