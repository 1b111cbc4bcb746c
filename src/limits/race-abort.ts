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
