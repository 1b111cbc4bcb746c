/**
 * Wrap an async function so calls run one after another, in call order: one model session
 * must not run two batches at once. A failed call does not block the ones queued behind it.
 *
 * @example
 * const embedSerially = oneAtATime((texts: string[]) => session.run(texts))
 */
export function oneAtATime<Args extends unknown[], Result>(fn: (...args: Args) => Promise<Result>): (...args: Args) => Promise<Result> {
  let queue: Promise<unknown> = Promise.resolve();
  return (...args) => {
    const run = queue.then(() => fn(...args));
    queue = run.catch(() => undefined);
    return run;
  };
}
