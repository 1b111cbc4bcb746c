/**
 * Selection by judgment: one small, non-streaming model call per turn names the tools the
 * next step needs. The call carries tool names with one-line summaries (never the schemas,
 * which would spend the tokens selection saves), the run prompt and a bounded excerpt of the
 * recent conversation. Every failure falls open to the full surface, with the cause.
 */

import { errorMessage } from '../describe-error.js';
import { raceAbort, withDeadline } from '../limits/abort.js';
import type { BudgetLimits } from '../limits/budget.js';
import { BudgetGate } from '../limits/budget.js';
import type { Message } from '../message.js';
import type { ModelClient, ModelRequest, ModelResponse } from '../model/client.js';
import { mergeOptions } from '../options.js';
import { nameRecord } from '../registry/name-record.js';
import type { ToolSchema } from '../registry/schema.js';
import { truncateUtf8 } from '../text/truncate-utf8.js';
import { fullSurface, withCore } from './apply-selection.js';
import type { ToolAnswer } from './parse-tool-answer.js';
import type { AsyncToolSelector, SelectionContext, SelectOptions, SelectorOutput, ToolReason } from './selector.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_TOKENS = 256;

/** Options for {@link RewritingSelector}. */
export interface RewritingSelectorOptions {
  /** The selector's own deadline per call; past it the turn falls open. Default 10,000 ms. */
  timeoutMs?: number;
  /**
   * Limits on the selector's own spending within one run: `maxTokens` (reported input plus
   * output tokens of its calls), `maxWallClockMs` (time spent waiting on its calls) and
   * `maxTurns` (calls made). After a hard crossing it refuses further calls for the run.
   */
  budget?: BudgetLimits;
  /** Honour an answer that names no tool ("[]", "none") with an empty selection. Default false: fall open. */
  allowEmpty?: boolean;
  /** Tools unioned into every non-empty selection (they are in the fail-open surface anyway). */
  coreTools?: readonly string[];
  /** The answer's token cap. Default 256. */
  maxTokens?: number;
  /** Recent conversation messages excerpted into the prompt. Default 4. */
  recentMessages?: number;
}

interface Settings {
  readonly timeoutMs: number;
  readonly budget: Readonly<BudgetLimits>;
  readonly allowEmpty: boolean;
  readonly coreTools: readonly string[];
  readonly maxTokens: number;
  readonly recentMessages: number;
}

/**
 * One run's budget: a gate whose clock is the time spent waiting on rewrite calls, so
 * `maxWallClockMs` bounds the selector's own waiting, not the run's total duration.
 */
class RunBudget {
  spentMs = 0;
  readonly gate: BudgetGate;

  constructor(limits: Readonly<BudgetLimits>) {
    // Whole milliseconds, as the loop's own gate reports them.
    this.gate = new BudgetGate(limits, () => Math.round(this.spentMs));
  }
}

/**
 * An {@link AsyncToolSelector} that asks a (small, cheap) model which tools this turn needs.
 * One non-streaming call per turn, `temperature: 0`, no tools on that call. The answer is read
 * tolerantly (a JSON array or object, a bullet or numbered list, comma-separated names,
 * names in prose, code fences) but only exact registered names are accepted (or the
 * wire-safe form of a registered name, e.g. `math_factorial` for `math.factorial`, when it
 * maps back unambiguously). The named tools are advertised in registry order.
 *
 * Fails open to the full surface, with `fellOpen` naming the cause, on a transport or HTTP
 * error, the selector's own timeout, a budget refusal, or an answer naming no registered
 * tool. An answer naming no tool on purpose ("[]", "none") is an empty selection only with
 * `allowEmpty`; otherwise it falls open too. Aborting the caller's signal rejects with the
 * signal's reason (never a fall-open).
 *
 * Budget scope: one gate per run. A context with `turn === 1` starts a run; later turns find
 * their run's gate by the identity of `ctx.conversation[0]` (the loop hands every turn of a
 * run the same first message object), falling back to the most recent run's gate.
 *
 * @example
 * const picker = openAIChatClient({ model: 'qwen3:1.7b' })
 * const selector = new RewritingSelector(picker)
 *   .withTimeout(5_000)
 *   .withBudget({ maxTokens: 20_000 })
 *   .withCoreTools(['read_file'])
 * const loop = new BareLoop({ client: openAIChatClient({ model: 'qwen3:32b' }), registry })
 *   .withAsyncToolSelector(selector)
 */
export class RewritingSelector implements AsyncToolSelector {
  readonly name = 'rewriting';
  readonly client: ModelClient;
  readonly #settings: Settings;
  readonly #core: ReadonlySet<string>;
  readonly #runs = new WeakMap<object, RunBudget>();
  #latest: RunBudget | undefined;

  constructor(client: ModelClient, options: RewritingSelectorOptions = {}) {
    const defaults = {
      timeoutMs: DEFAULT_TIMEOUT_MS,
      budget: {},
      allowEmpty: false,
      coreTools: [],
      maxTokens: DEFAULT_MAX_TOKENS,
      recentMessages: 4,
    };
    const { budget, coreTools, ...rest } = mergeOptions(defaults, options);
    const settings: Settings = { ...rest, budget: { ...budget }, coreTools: [...coreTools] };
    if (!(Number.isFinite(settings.timeoutMs) && settings.timeoutMs > 0)) {
      throw new RangeError(`timeoutMs must be a positive number, got ${settings.timeoutMs}`);
    }
    if (!(Number.isInteger(settings.maxTokens) && settings.maxTokens > 0)) {
      throw new RangeError(`maxTokens must be a positive integer, got ${settings.maxTokens}`);
    }
    if (!(Number.isInteger(settings.recentMessages) && settings.recentMessages >= 0)) {
      throw new RangeError(`recentMessages must be a non-negative integer, got ${settings.recentMessages}`);
    }
    // Validate the limits now (the gate throws on a bad one), not on the first turn.
    new BudgetGate(settings.budget);
    this.client = client;
    this.#settings = settings;
    this.#core = new Set(settings.coreTools);
  }

  /** The selector's own deadline per call, in milliseconds. */
  get timeoutMs(): number {
    return this.#settings.timeoutMs;
  }

  /** The per-run limits on the selector's own calls. */
  get budget(): Readonly<BudgetLimits> {
    return this.#settings.budget;
  }

  /** Whether an intentional "no tool" answer yields an empty selection. */
  get allowEmpty(): boolean {
    return this.#settings.allowEmpty;
  }

  /** The core tool names. */
  get coreTools(): readonly string[] {
    return this.#settings.coreTools;
  }

  /**
   * A copy with these options over this selector's, merged by \`mergeOptions\` (a key left
   * \`undefined\` keeps this selector's): the one way to derive a configured selector.
   *
   * @example
   * const narrow = selector.extend({ timeoutMs: 3_000, coreTools: ['read_file'] })
   */
  extend(options: RewritingSelectorOptions): RewritingSelector {
    return new RewritingSelector(this.client, mergeOptions(this.#settings, options));
  }

  /**
   * A copy whose calls give up after `ms` (the turn then falls open).
   *
   * @example
   * const quick = selector.withTimeout(3_000)
   */
  withTimeout(ms: number): RewritingSelector {
    return this.extend({ timeoutMs: ms });
  }

  /**
   * A copy that stops calling for the rest of a run once its calls cross a limit.
   *
   * @example
   * const capped = selector.withBudget({ maxTokens: 10_000, maxWallClockMs: 30_000 })
   */
  withBudget(limits: BudgetLimits): RewritingSelector {
    return this.extend({ budget: limits });
  }

  /**
   * A copy that honours an answer naming no tool with an empty selection.
   *
   * @example
   * const chatty = selector.withAllowEmpty() // "[]" → the request carries no tools
   */
  withAllowEmpty(allow = true): RewritingSelector {
    return this.extend({ allowEmpty: allow });
  }

  /**
   * A copy that unions these tools into every non-empty selection.
   *
   * @example
   * const withBasics = selector.withCoreTools(['read_file', 'write_file'])
   */
  withCoreTools(names: readonly string[]): RewritingSelector {
    return this.extend({ coreTools: [...this.#settings.coreTools, ...names] });
  }

  /**
   * The tools to advertise this turn (registry order), or the full surface with `fellOpen`
   * naming why. Rejects only when `options.signal` aborts, with its reason.
   *
   * @example
   * const { tools, fellOpen, warnings } = await selector.select(ctx, all, { signal })
   */
  async select(ctx: SelectionContext, all: readonly ToolSchema[], options?: SelectOptions): Promise<SelectorOutput> {
    const signal = options?.signal;
    signal?.throwIfAborted();
    if (all.length === 0) return { tools: [] };

    // Prompt building and answer reading load with the first selection that needs them.
    const [{ buildRewritePrompt, REWRITE_INSTRUCTIONS }, { parseToolAnswer }] = await Promise.all([
      import('./rewrite-prompt.js'),
      import('./parse-tool-answer.js'),
    ]);
    signal?.throwIfAborted();
    const prompt = buildRewritePrompt(ctx, all, this.#settings.recentMessages);
    if (prompt === undefined)
      return fullSurface(all, this.#core, 'no prompt to select for (the run has no opening prompt or conversation)');

    const run = this.#budgetFor(ctx);
    const refusal = run.gate.admit();
    if (refusal) return fullSurface(all, this.#core, refusal.message);

    const request: ModelRequest = {
      messages: [
        { role: 'system', content: REWRITE_INSTRUCTIONS },
        { role: 'user', content: prompt },
      ],
      tools: [],
      maxTokens: this.#settings.maxTokens,
      temperature: 0,
      stream: false,
    };
    const started = performance.now();
    let outcome: CallOutcome;
    try {
      outcome = await completeWithin(this.client, request, this.#settings.timeoutMs, signal);
    } finally {
      // Timed-out and failed calls spent wall-clock too.
      run.spentMs += performance.now() - started;
    }
    if (!outcome.ok) return fullSurface(all, this.#core, outcome.reason);
    run.gate.record(outcome.reply.usage);
    return this.#fromAnswer(
      outcome.reply,
      all,
      parseToolAnswer(
        outcome.reply.text,
        all.map((tool) => tool.name),
      ),
    );
  }

  #fromAnswer(reply: ModelResponse, all: readonly ToolSchema[], answer: ToolAnswer): SelectorOutput {
    if (answer.kind === 'empty') {
      if (this.#settings.allowEmpty) return { tools: [] };
      return fullSurface(
        all,
        this.#core,
        'the answer selected no tool, and empty selections are not allowed (allowEmpty is off)',
      );
    }
    if (answer.kind === 'none') {
      const cut = reply.finishReason === 'length' ? ' (the answer was cut off at maxTokens)' : '';
      const reason =
        answer.unknown.length > 0
          ? `the answer named no registered tool (it named ${answer.unknown.map((name) => JSON.stringify(name)).join(', ')})`
          : reply.text.trim() === ''
            ? 'the answer was empty'
            : `the answer named no tool: ${JSON.stringify(truncateUtf8(reply.text.trim(), 120))}`;
      return fullSurface(all, this.#core, reason + cut);
    }

    const picked = new Set(answer.names);
    const chosen = all.filter((tool) => picked.has(tool.name));
    const reasons = nameRecord<ToolReason>();
    for (const tool of all)
      if (this.#core.has(tool.name) && !picked.has(tool.name)) reasons[tool.name] = { core: true };
    const warnings =
      answer.unknown.length > 0
        ? [`the rewrite named tools not in the registry, ignored: ${answer.unknown.join(', ')}`]
        : [];
    return { tools: withCore(chosen, all, this.#core), reasons, ...(warnings.length ? { warnings } : {}) };
  }

  // A turn-1 context starts a run; later turns find it by their first message's identity.
  #budgetFor(ctx: SelectionContext): RunBudget {
    const key: Message | undefined = ctx.conversation[0];
    if (ctx.turn > 1) {
      const known = (key && this.#runs.get(key)) ?? this.#latest;
      if (known) return known;
    }
    const budget = new RunBudget(this.#settings.budget);
    if (key) this.#runs.set(key, budget);
    this.#latest = budget;
    return budget;
  }
}

type CallOutcome =
  | { readonly ok: true; readonly reply: ModelResponse }
  | { readonly ok: false; readonly reason: string };

/**
 * One call under the selector's deadline and the caller's signal. The deadline and the
 * caller's abort are different events: a deadline is a failure to fall open on; the
 * caller's abort is the run going away, so it rejects with the caller's reason.
 */
async function completeWithin(
  client: ModelClient,
  request: ModelRequest,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<CallOutcome> {
  const deadline = withDeadline(outer, timeoutMs);
  const signal = deadline.signal as AbortSignal;
  try {
    // `then` turns a client's synchronous throw into a rejection; the race settles even
    // when a client ignores its signal.
    const pending = Promise.resolve().then(() => client.complete(request, { signal }));
    return { ok: true, reply: await raceAbort(pending, signal) };
  } catch (error) {
    if (outer?.aborted) throw outer.reason;
    if (deadline.expired()) return { ok: false, reason: `rewrite call timed out after ${timeoutMs} ms` };
    return { ok: false, reason: `rewrite call failed: ${errorMessage(error)}` };
  }
}
