/**
 * The work budget of one Grep or Glob call. A model writes the patterns, so the matching is
 * counted in steps (see {@link PatternBudget}) and capped per call; and because matching is
 * synchronous, the call hands the event loop a turn every so often, so that an abort fired by
 * a timer or another request is seen while the call runs, not only after it.
 */

/**
 * Steps between turns handed to the event loop: some tens of milliseconds of matching, so an
 * abort is seen that soon, while the pauses (a zero-delay timer: at least 1 ms in Node, 4 ms in
 * a browser once timers nest) cost a small fraction of the call.
 */
export const STEPS_BETWEEN_PAUSES = 1 << 20;

/**
 * A pattern whose matching went over the call's budget, or whose compiled form is too large.
 *
 * @example
 * try { budget.spend(1) } catch (e) { e instanceof PatternTooExpensiveError } // when spent
 */
export class PatternTooExpensiveError extends Error {
  override readonly name = 'PatternTooExpensiveError';
}

/**
 * Steps spent by one call against its limit. A step is one character read with a known
 * matcher state, or one pattern state visited while working out a new matcher state; so a
 * call's time is proportional to its steps whatever the pattern.
 *
 * @example
 * const budget = new PatternBudget(10_000_000, signal, 'Grep')
 * if (budget.spend(1)) await budget.pause() // throws when aborted
 */
export class PatternBudget {
  #used = 0;
  #sincePause = 0;

  constructor(
    /** Steps the call may spend. */
    readonly limit: number,
    readonly signal: AbortSignal,
    /** Names the tool and the option in the error, e.g. `Grep`. */
    readonly tool: string,
  ) {}

  /** Steps spent so far. */
  get used(): number {
    return this.#used;
  }

  /** Steps that may be spent before the next pause is due or the budget runs out. */
  get allowance(): number {
    return Math.max(0, Math.min(this.limit - this.#used, STEPS_BETWEEN_PAUSES - this.#sincePause));
  }

  /** Count `steps`; throws once the budget is spent. True when a pause is due. */
  spend(steps: number): boolean {
    this.#used += steps;
    this.#sincePause += steps;
    if (this.#used > this.limit)
      throw new PatternTooExpensiveError(
        `pattern too expensive: matching went over ${this.limit.toLocaleString('en-US')} steps ` +
          `(the maxPatternSteps limit of ${this.tool}); use a simpler pattern or narrow the path`,
      );
    return this.#sincePause >= STEPS_BETWEEN_PAUSES;
  }

  /** Whether a pause is due. */
  get due(): boolean {
    return this.#sincePause >= STEPS_BETWEEN_PAUSES;
  }

  /** Give the event loop a turn (a timer, not a microtask, so timers and I/O run), then check the signal. */
  async pause(): Promise<void> {
    this.#sincePause = 0;
    this.signal.throwIfAborted();
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    this.signal.throwIfAborted();
  }
}
