/**
 * A queue that runs tasks one after another, in the order they were given: one model session
 * must not run two batches at once, and two learns must not interleave their writes. A task
 * that fails does not block the ones queued behind it.
 *
 * @example
 * const serially = taskQueue()
 * await Promise.all([serially(() => write('a')), serially(() => write('b'))]) // 'a' finishes first
 */
export function taskQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };
}

/**
 * Wrap an async function so calls run one after another, in call order (over one
 * {@link taskQueue}).
 *
 * @example
 * const embedSerially = oneAtATime((texts: string[]) => session.run(texts))
 */
export function oneAtATime<Args extends unknown[], Result>(
  fn: (...args: Args) => Promise<Result>,
): (...args: Args) => Promise<Result> {
  const serially = taskQueue();
  return (...args) => serially(() => fn(...args));
}
