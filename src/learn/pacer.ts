/**
 * Cooperative time slicing for long pure computations (the query projection's fit): the work
 * asks {@link Pacer.due} between steps and, when its slice is used up, awaits
 * {@link Pacer.pause}, which resumes on a later task. A browser's main thread then keeps
 * painting and answering input while a few thousand examples are fitted. Web-standard only.
 *
 * @module
 */

/** Lets a long computation give its thread back between steps. */
export interface Pacer {
  /** True once the current slice is used up (check between steps; cheap). */
  due(): boolean;
  /** Resolves on a later task and starts a new slice. */
  pause(): Promise<void>;
}

/** Never pauses: the computation runs start to finish as one task. */
export const UNPACED: Pacer = { due: () => false, pause: () => Promise.resolve() };

/**
 * A pacer that pauses after every `sliceMs` of work. On Cloudflare Workers the clock stands
 * still while code runs, so it never pauses there (no thread to share).
 *
 * @example
 * const pace = timeSlices(16)
 * for (const block of blocks) {
 *   if (pace.due()) await pace.pause()
 *   work(block)
 * }
 */
export function timeSlices(sliceMs = 16): Pacer {
  let started = performance.now();
  return {
    due: () => performance.now() - started >= sliceMs,
    pause: async () => {
      await nextTask();
      started = performance.now();
    },
  };
}

// `scheduler.yield()` where the runtime has it (it resumes ahead of other queued tasks and is
// not clamped); otherwise a zero-delay timer.
function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}
