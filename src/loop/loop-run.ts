import type { LoopEvent } from './events.js';
import type { RunResult } from './loop-options.js';

/** How a run reports: push an event; `onClose` hears the consumer going away. */
export type Emit = ((event: LoopEvent) => void) & { onClose(listener: () => void): void };

/**
 * A running loop: an async iterable of {@link LoopEvent}s, and `result()` for the outcome.
 * Stopping the iteration early (break, or an SSE client going away) cancels the run.
 *
 * @example
 * const run = loop.run('List my open pull requests')
 * for await (const event of run) render(event)
 * const { text } = await run.result()
 */
export class LoopRun implements AsyncIterable<LoopEvent> {
  readonly #queue: LoopEvent[] = [];
  readonly #closeListeners: (() => void)[] = [];
  readonly #result: Promise<RunResult>;
  #wake: (() => void) | undefined;
  #finished = false;
  #iterating = false;

  constructor(execute: (emit: Emit) => Promise<RunResult>) {
    const emit = ((event: LoopEvent) => {
      this.#queue.push(event);
      this.#wake?.();
    }) as Emit;
    emit.onClose = (listener) => this.#closeListeners.push(listener);
    // Start on a microtask so callers can attach before the first event.
    this.#result = Promise.resolve().then(() => execute(emit));
    this.#result
      .finally(() => {
        this.#finished = true;
        this.#wake?.();
      })
      .catch(() => undefined);
  }

  /** The final answer and totals; resolves when the run ends (it never rejects). */
  result(): Promise<RunResult> {
    return this.#result;
  }

  /** Stop the run early, as a consumer that went away would. */
  cancel(): void {
    for (const listener of this.#closeListeners) listener();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<LoopEvent> {
    if (this.#iterating) throw new Error('a run can be iterated once');
    this.#iterating = true;
    let completed = false;
    try {
      while (true) {
        const event = this.#queue.shift();
        if (event) {
          yield event;
          continue;
        }
        if (this.#finished) {
          completed = true;
          return;
        }
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
      }
    } finally {
      if (!completed) this.cancel();
    }
  }
}
