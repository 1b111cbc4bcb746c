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
