import type { ModelUsage } from '../model/client.js';

/**
 * Limits on a run (or on a selector's own calls). A hard crossing of any limit ends the run
 * with a budget event; unset limits do not apply.
 *
 * @example
 * const limits: BudgetLimits = { maxTokens: 50_000, maxWallClockMs: 60_000, maxTurns: 8 }
 */
export interface BudgetLimits {
  /** Input plus output tokens, as reported by the provider. */
  maxTokens?: number;
  /** Wall-clock time since the gate was created. */
  maxWallClockMs?: number;
  /** Requests (turns). */
  maxTurns?: number;
}

/** Why a gate refused, with the figure that crossed. */
export interface BudgetRefusal {
  readonly limit: 'tokens' | 'wall_clock' | 'turns';
  readonly used: number;
  readonly max: number;
  readonly message: string;
}

/**
 * The budget gate: checked before every request, fed with every reported usage. Small and
 * standalone so the loop and the rewriting selector share it.
 *
 * @example
 * const gate = new BudgetGate({ maxTokens: 10_000 })
 * const refusal = gate.check()
 * if (!refusal) { const reply = await client.complete(request); gate.record(reply.usage) }
 */
export class BudgetGate {
  readonly limits: Readonly<BudgetLimits>;
  readonly #now: () => number;
  readonly #started: number;
  #tokens = 0;
  #requests = 0;
  #refusal: BudgetRefusal | undefined;

  constructor(limits: BudgetLimits = {}, now: () => number = () => Date.now()) {
    for (const [key, value] of Object.entries(limits)) {
      if (value !== undefined && !(typeof value === 'number' && value >= 0)) {
        throw new RangeError(`budget limit ${key} must be a non-negative number, got ${value}`);
      }
    }
    this.limits = { ...limits };
    this.#now = now;
    this.#started = now();
  }

  get tokensUsed(): number {
    return this.#tokens;
  }

  get requests(): number {
    return this.#requests;
  }

  /** Add a reported usage. */
  record(usage: ModelUsage | undefined): void {
    if (usage) this.#tokens += usage.inputTokens + usage.outputTokens;
  }

  /**
   * May another request go out? Returns the refusal when a limit is crossed. Once refused,
   * the gate stays shut: a hard crossing ends the budget for good.
   */
  check(): BudgetRefusal | undefined {
    if (this.#refusal) return this.#refusal;
    const { maxTokens, maxWallClockMs, maxTurns } = this.limits;
    const elapsed = this.#now() - this.#started;
    if (maxTokens !== undefined && this.#tokens >= maxTokens) {
      this.#refusal = refusal('tokens', this.#tokens, maxTokens);
    } else if (maxWallClockMs !== undefined && elapsed >= maxWallClockMs) {
      this.#refusal = refusal('wall_clock', elapsed, maxWallClockMs);
    } else if (maxTurns !== undefined && this.#requests >= maxTurns) {
      this.#refusal = refusal('turns', this.#requests, maxTurns);
    }
    return this.#refusal;
  }

  /** Check, and count a request when allowed. */
  admit(): BudgetRefusal | undefined {
    const refused = this.check();
    if (!refused) this.#requests += 1;
    return refused;
  }
}

function refusal(limit: BudgetRefusal['limit'], used: number, max: number): BudgetRefusal {
  const unit = limit === 'tokens' ? 'tokens' : limit === 'wall_clock' ? 'ms' : 'turns';
  return { limit, used, max, message: `budget exhausted: ${used} of ${max} ${unit} (${limit})` };
}
