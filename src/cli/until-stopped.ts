/**
 * Resolves at SIGINT or SIGTERM, or when `signal` aborts (then the process signals are left
 * alone, so a test or an embedding host decides). The handlers are removed once it resolves, so
 * a second server in the same process does not find the first one's listeners.
 *
 * @example
 * await untilStopped(options.signal) // then close the server
 */
export function untilStopped(signal?: AbortSignal): Promise<void> {
  return new Promise((done) => {
    if (signal) {
      if (signal.aborted) return done();
      signal.addEventListener('abort', () => done(), { once: true });
      return;
    }
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
