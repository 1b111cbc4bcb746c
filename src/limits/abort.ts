/** Abort plumbing on web standards: one race, one deadline. */
/**
 * Settle with `promise`, or reject with the signal's reason the moment it aborts, whichever
 * comes first. The loop uses it so a cancelled run never waits on a slow selector; the
 * abandoned promise's eventual rejection is swallowed rather than left unhandled.
 *
 * @example
 * const tools = await raceAbort(selector.select(ctx, all, { signal }), signal)
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  promise.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** A signal with a deadline, and a way to tell the deadline from the caller's own abort. */
export interface Deadline {
  /** Aborts when the caller's signal does or when the deadline passes, whichever is first. */
  readonly signal: AbortSignal | undefined;
  /** Whether the deadline (not the caller) aborted `signal`. */
  expired(): boolean;
}

/**
 * Link a caller's signal with a deadline of `ms` (none when `ms` is undefined), using the
 * platform's `AbortSignal.timeout` and `AbortSignal.any`. A deadline is a failure to fall
 * open on; the caller's abort is the run going away: `expired()` tells which happened.
 *
 * @example
 * const deadline = withDeadline(signal, 5_000)
 * try { return await raceAbort(call(deadline.signal), deadline.signal) }
 * catch (error) { if (deadline.expired()) return fallOpen('timed out'); throw error }
 */
export function withDeadline(outer: AbortSignal | undefined, ms: number | undefined): Deadline {
  if (ms === undefined) return { signal: outer, expired: () => false };
  const timeout = AbortSignal.timeout(ms);
  return {
    signal: outer ? AbortSignal.any([outer, timeout]) : timeout,
    expired: () => timeout.aborted && !outer?.aborted,
  };
}
