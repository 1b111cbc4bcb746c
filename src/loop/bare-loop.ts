import type { AssistantMessage, Message, ToolCall, ToolMessage, ToolResult } from '../message.js';
import { messageText } from '../message.js';
import type { FinishReason, ModelClient, ModelRequest, ModelUsage, ToolChoice } from '../model/client.js';
import type { Selection } from '../select/apply-selection.js';
import { applySelection } from '../select/apply-selection.js';
import type { AsyncToolSelector, SelectionContext, SelectorOutput, ToolSelector } from '../select/selector.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ToolSchema } from '../registry/schema.js';
import { toolsCost } from '../registry/tool-cost.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { approxTokenCounter } from '../tokens/token-counter.js';
import type { BudgetLimits } from '../limits/budget.js';
import { BudgetGate } from '../limits/budget.js';
import { ToolConstraint } from './constraint.js';
import { ContextAccount } from './estimate.js';
import type { LoopEvent, StopReason } from './events.js';
import type { ContextManager } from './managers.js';
import { raceAbort } from '../limits/race-abort.js';
import { FIND_TOOLS, ToolSearch, type ToolSearchOptions } from './tool-search.js';
import { recordTurn } from './learning-recorder.js';

/** How a loop runs. Every field has a default. */
export interface LoopConfig {
  /** A system prompt, sent first on every request. */
  system?: string;
  /** How the model may call tools. Default `auto`. */
  constraint?: ToolConstraint;
  /** Requests per run. Default 10. */
  maxTurns?: number;
  /** The model's context window in tokens. Default 128,000. */
  contextWindow?: number;
  /** Room kept for the reply; also sent as the request's max tokens when set. Default 4,096 (not sent). */
  maxOutputTokens?: number;
  /** Sampling temperature, sent only when set. */
  temperature?: number;
  /** Token, wall-clock and turn limits for the run. */
  budget?: BudgetLimits;
  /** Stream replies (text deltas as they arrive). Default true. */
  stream?: boolean;
  /** Counts tokens for estimates. Default: a fast byte-based approximation. */
  tokenCounter?: TokenCounter;
}

/** What a loop is built from. */
export interface BareLoopOptions {
  client: ModelClient;
  registry: ToolRegistry;
  config?: LoopConfig;
  /** Context managers, tried in order when the window would overflow. */
  managers?: readonly ContextManager[];
}

/** Per-run options. */
export interface RunOptions {
  /** Cancels the run: the selector race, the model request and tool handlers. */
  signal?: AbortSignal;
  /**
   * Messages that ride this run's request view but not its transcript (attachments,
   * memories). Selectors see them in `conversation`.
   */
  transients?: readonly Message[];
}

/** The outcome of a run, for callers that do not stream. */
export interface RunResult {
  readonly text: string;
  readonly stopReason: StopReason;
  readonly turns: number;
  readonly usage: ModelUsage;
  /** The durable transcript: input messages, replies and tool results. */
  readonly messages: readonly Message[];
  /** The error that ended the run, when one did. */
  readonly error?: { code: string; message: string };
}

type InstalledSelector = { kind: 'sync'; selector: ToolSelector } | { kind: 'async'; selector: AsyncToolSelector };

const DEFAULTS = {
  constraint: ToolConstraint.Auto as ToolConstraint,
  maxTurns: 10,
  contextWindow: 128_000,
  stream: true,
};

/**
 * The agent loop: per turn it selects the advertised tools (exactly once, at request build),
 * sends the request, streams the reply, dispatches tool calls through the registry, and
 * repeats until the model answers without calls or a limit stops it.
 *
 * @example
 * const loop = new BareLoop({ client: openAIChatClient({ model: 'qwen3:4b' }), registry })
 *   .withToolSelector(new KeywordSelector())
 * for await (const event of loop.run('What is the weather in Oslo?')) {
 *   if (event.type === 'text') process.stdout.write(event.delta)
 * }
 */
export class BareLoop {
  readonly client: ModelClient;
  readonly registry: ToolRegistry;
  readonly config: Readonly<LoopConfig>;
  readonly managers: readonly ContextManager[];
  #selector: InstalledSelector | undefined;
  #toolSearch: ToolSearchOptions | undefined;
  #learning = false;

  constructor(options: BareLoopOptions) {
    this.client = options.client;
    this.registry = options.registry;
    this.config = { ...options.config };
    this.managers = [...(options.managers ?? [])];
  }

  /** Install a sync selector (clears any async one). Returns this loop. */
  withToolSelector(selector: ToolSelector): this {
    this.setToolSelector(selector);
    return this;
  }

  /**
   * Change the sync selector; `undefined` removes selection. Clears any async selector. A run
   * keeps the selector it started with; the change applies from the next run.
   */
  setToolSelector(selector: ToolSelector | undefined): void {
    this.#selector = selector ? { kind: 'sync', selector } : undefined;
  }

  /** Install an async selector (clears any sync one). Returns this loop. */
  withAsyncToolSelector(selector: AsyncToolSelector): this {
    this.setAsyncToolSelector(selector);
    return this;
  }

  /**
   * Change the async selector; `undefined` removes selection. Clears any sync selector. A run
   * keeps the selector it started with; the change applies from the next run.
   */
  setAsyncToolSelector(selector: AsyncToolSelector | undefined): void {
    this.#selector = selector ? { kind: 'async', selector } : undefined;
  }

  /**
   * Add the `find_tools` tool to every request: when none of the offered tools fits, the model
   * can search the whole registry (ranked by this loop's selector, or BM25); the top `k` tools
   * found ride every later request of the run. `false` turns it off. Returns this loop.
   *
   * @example
   * const loop = new BareLoop({ client, registry }).withSelector(hybrid).withToolSearch({ k: 5 })
   */
  withToolSearch(options: ToolSearchOptions | false = {}): this {
    if (options !== false) new ToolSearch(options, undefined); // validates k now, not mid-run
    this.#toolSearch = options === false ? undefined : { ...options };
    return this;
  }

  /**
   * Opt in to learning from this loop's traffic: a turn whose tool calls all succeed teaches
   * the selector (when it can learn) the run's prompt → the tools called. The examples stay
   * in the selector's own cache. Returns this loop.
   *
   * @example
   * const loop = new BareLoop({ client, registry }).withSelector(hybrid).withLearning()
   */
  withLearning(enabled = true): this {
    this.#learning = enabled;
    return this;
  }

  /** The installed selector, if any. */
  get toolSelector(): ToolSelector | AsyncToolSelector | undefined {
    return this.#selector?.selector;
  }

  /**
   * Start a run. Iterate the result for events, or call `.result()` for the final answer.
   *
   * @example
   * const { text, usage } = await loop.run('Summarise README.md').result()
   */
  run(input: string | readonly Message[], options: RunOptions = {}): LoopRun {
    return new LoopRun((emit) => this.#execute(input, options, emit));
  }

  async #execute(input: string | readonly Message[], options: RunOptions, emit: Emit): Promise<RunResult> {
    const config = { ...DEFAULTS, ...this.config };
    const counter = config.tokenCounter ?? approxTokenCounter;
    const maxOutput = config.maxOutputTokens ?? 4096;
    const controller = new AbortController();
    const signal = controller.signal;
    const outer = options.signal;
    const onOuterAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    emit.onClose(() => controller.abort(new DOMException('the run was closed by its consumer', 'AbortError')));

    let transcript: Message[] = typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
    const prompt = openingPrompt(transcript);
    // One run, one selector: a change made mid-run applies from the next run, so every event
    // names the selector that actually served the turn.
    const installed = this.#selector;
    const search = this.#toolSearch ? new ToolSearch(this.#toolSearch, installed?.selector) : undefined;
    const learning = this.#learning;
    const selectorName = installed ? (installed.selector.name ?? 'custom') : null;
    const account = new ContextAccount(counter);
    const viewPrefix = requestPrefix(config.system, options.transients);
    const usage = { inputTokens: 0, outputTokens: 0 };
    let text = '';
    let turn = 0;

    const finish = (stopReason: StopReason, error?: { code: string; message: string }): RunResult => {
      outer?.removeEventListener('abort', onOuterAbort);
      const result: RunResult = { text, stopReason, turns: turn, usage: { ...usage }, messages: transcript, ...(error ? { error } : {}) };
      emit({ type: 'done', stopReason, text, turns: turn, usage: { ...usage } });
      return result;
    };

    emit({
      type: 'run_start',
      prompt,
      registered: this.registry.size,
      selector: selectorName,
      constraint: config.constraint,
    });

    try {
      // Inside the try: an invalid limit ends the run with an error event, like any failure.
      const gate = new BudgetGate(config.budget ?? {});
      while (true) {
        if (signal.aborted) return finish('cancelled');
        if (turn >= config.maxTurns) return finish('max_turns');
        const refusal = gate.admit();
        if (refusal) {
          emit({ type: 'budget_stop', turn, refusal });
          return finish('budget');
        }
        turn += 1;
        emit({ type: 'turn_start', turn });

        const all = this.registry.schemas();
        let view = [...viewPrefix, ...transcript];
        const ctx: SelectionContext = { turn, latestUserMessage: prompt, conversation: view };
        const started = performance.now();
        let selection = await this.#select(installed, ctx, all, signal, (code, message) => emit({ type: 'warning', turn, code, message }));
        // The registry's own tool of that name wins over the search tool.
        if (search && !this.registry.has(FIND_TOOLS)) selection = search.widen(selection, all);
        const registryTokens = toolsCost(all, counter);
        emit({
          type: 'selection',
          turn,
          advertised: [...selection.names],
          registered: all.length,
          advertisedTokens: toolsCost(selection.tools, counter),
          registryTokens,
          selector: selectorName,
          fellOpen: selection.fellOpen ?? null,
          reasons: { ...selection.reasons },
          ms: performance.now() - started,
        });
        for (const warning of selection.warnings) emit({ type: 'warning', turn, code: 'selection', message: warning });

        let estimate = account.estimate(view, selection.tools);
        const reservation = account.reservation(all, maxOutput);
        if (estimate.tokens + reservation > config.contextWindow) {
          for (const manager of this.managers) {
            const compaction = manager.compact({
              messages: transcript,
              tokens: estimate.tokens,
              limit: config.contextWindow - reservation,
              counter,
            });
            if (!compaction) continue;
            transcript = compaction.messages;
            view = [...viewPrefix, ...transcript];
            const after = account.estimate(view, selection.tools);
            emit({
              type: 'compaction',
              turn,
              manager: manager.name,
              beforeTokens: estimate.tokens,
              afterTokens: after.tokens,
              summary: compaction.summary,
            });
            estimate = after;
            if (estimate.tokens + reservation <= config.contextWindow) break;
          }
          if (estimate.tokens + reservation > config.contextWindow) {
            emit({
              type: 'warning',
              turn,
              code: 'context_overflow',
              message: `estimated ${estimate.tokens} tokens plus a ${reservation}-token reservation exceed the ${config.contextWindow}-token window`,
            });
          }
        }

        const request = buildRequest(view, selection.tools, config);
        emit({
          type: 'request',
          turn,
          provider: this.client.provider,
          model: this.client.model,
          messages: view.length,
          tools: selection.tools.length,
          estimatedInputTokens: estimate.tokens,
          anchored: estimate.anchored,
          reservationTokens: reservation,
          contextWindow: config.contextWindow,
        });

        const calls: ToolCall[] = [];
        let replyText = '';
        let reported: ModelUsage | undefined;
        let finishReason: FinishReason = 'other';
        if (config.stream) {
          for await (const event of this.client.stream(request, { signal })) {
            if (event.type === 'text') {
              replyText += event.delta;
              emit({ type: 'text', turn, delta: event.delta });
            } else if (event.type === 'tool_call') calls.push(event.call);
            else if (event.type === 'usage') reported = event.usage;
            else finishReason = event.reason;
          }
        } else {
          const reply = await this.client.complete(request, { signal });
          replyText = reply.text;
          if (replyText) emit({ type: 'text', turn, delta: replyText });
          calls.push(...reply.toolCalls);
          reported = reply.usage;
          finishReason = reply.finishReason;
        }
        if (reported) {
          usage.inputTokens += reported.inputTokens;
          usage.outputTokens += reported.outputTokens;
          gate.record(reported);
          account.anchor(view, selection.tools, reported);
          emit({ type: 'usage', turn, usage: reported, totalTokens: usage.inputTokens + usage.outputTokens, finishReason });
        }

        const reply: AssistantMessage = calls.length > 0 ? { role: 'assistant', content: replyText, toolCalls: calls } : { role: 'assistant', content: replyText };
        transcript = [...transcript, reply];
        text = replyText;
        if (finishReason === 'length') {
          emit({ type: 'warning', turn, code: 'truncated', message: 'the reply hit the output token limit and may be cut short' });
        }
        if (calls.length === 0) return finish('stop');

        const results = await this.#dispatchAll(calls, selection, config.constraint, signal, turn, emit, search && !this.registry.has(FIND_TOOLS) ? { search, all } : undefined);
        transcript = [...transcript, ...results.map(toToolMessage)];
        if (learning && !signal.aborted) {
          const problem = await recordTurn(installed?.selector, prompt, calls, results, all, signal);
          if (problem) emit({ type: 'warning', turn, code: 'learning', message: problem });
        }
        if (signal.aborted) return finish('cancelled');
        const after = account.estimate([...viewPrefix, ...transcript], selection.tools);
        emit({ type: 'estimate', turn, phase: 'post_dispatch', tokens: after.tokens, anchored: after.anchored });
      }
    } catch (error) {
      if (signal.aborted) return finish('cancelled');
      const described = describeError(error);
      emit({ type: 'error', turn, ...described });
      return finish('error', described);
    }
  }

  async #select(
    installed: InstalledSelector | undefined,
    ctx: SelectionContext,
    all: readonly ToolSchema[],
    signal: AbortSignal,
    warn: (code: string, message: string) => void,
  ): Promise<Selection> {
    if (!installed) return applySelection(all, all);
    let output: SelectorOutput | readonly ToolSchema[];
    try {
      if (installed.kind === 'sync') {
        const { selector } = installed;
        output = selector.selectDetailed ? selector.selectDetailed(ctx, all) : selector.select(ctx, all);
      } else {
        const { selector } = installed;
        const pending = selector.selectDetailed
          ? selector.selectDetailed(ctx, all, { signal })
          : selector.select(ctx, all, { signal });
        output = await raceAbort(Promise.resolve(pending), signal);
      }
    } catch (error) {
      if (signal.aborted) throw error;
      // A selector that throws must not strand the model: serve the full surface and say why.
      warn('selector_failed', `selector ${installed.selector.name ?? 'custom'} failed, advertising every tool: ${describeError(error).message}`);
      return applySelection({ tools: all, fellOpen: `selector threw: ${describeError(error).message}` }, all);
    }
    return applySelection(output, all);
  }

  async #dispatchAll(
    calls: readonly ToolCall[],
    selection: Selection,
    constraint: ToolConstraint,
    signal: AbortSignal,
    turn: number,
    emit: Emit,
    searching?: { search: ToolSearch; all: readonly ToolSchema[] },
  ): Promise<ToolResult[]> {
    const advertised = new Set(selection.names);
    for (const call of calls) emit({ type: 'tool_call', turn, call, advertised: advertised.has(call.name) });
    return Promise.all(
      calls.map(async (call) => {
        const started = performance.now();
        let result: ToolResult;
        if (searching && call.name === FIND_TOOLS) {
          result = await searching.search.handle(call, searching.all, advertised, signal).catch(() => ({
            toolCallId: call.id,
            name: call.name,
            content: `tool "${call.name}" was cancelled`,
            isError: true,
          }));
        } else if (constraint === ToolConstraint.Strict && !advertised.has(call.name) && this.registry.has(call.name)) {
          result = { toolCallId: call.id, name: call.name, content: `tool "${call.name}" was not offered this turn`, isError: true };
        } else {
          // A handler that ignores its signal must not hold a cancelled run open.
          result = await raceAbort(this.registry.dispatch(call, { signal }), signal).catch(() => ({
            toolCallId: call.id,
            name: call.name,
            content: `tool "${call.name}" was cancelled`,
            isError: true,
          }));
        }
        emit({ type: 'tool_result', turn, result, ms: performance.now() - started });
        return result;
      }),
    );
  }
}

/** The run's opening prompt: the last user message of the input. */
function openingPrompt(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    if (message.role === 'user') return messageText(message);
  }
  return undefined;
}

/**
 * What every request of a run carries ahead of the transcript: the system prompt, then the
 * transients. Built once per run so each request's view shares these message objects: the
 * usage anchor recognises its wire prefix by identity.
 */
function requestPrefix(system: string | undefined, transients: readonly Message[] | undefined): readonly Message[] {
  const prefix: Message[] = [];
  if (system) prefix.push({ role: 'system', content: system });
  if (transients) for (const message of transients) prefix.push(message.role === 'user' ? { ...message, transient: true } : message);
  return prefix;
}

function buildRequest(messages: readonly Message[], tools: readonly ToolSchema[], config: LoopConfig): ModelRequest {
  const toolChoice = wireToolChoice(config.constraint ?? ToolConstraint.Auto);
  return {
    messages,
    tools,
    ...(toolChoice && tools.length > 0 ? { toolChoice } : {}),
    ...(config.maxOutputTokens !== undefined ? { maxTokens: config.maxOutputTokens } : {}),
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
  };
}

// Strict needs no tool choice: the wire carries only the advertised schemas, which is the
// provider's own way of limiting calls; the loop also refuses unadvertised calls.
function wireToolChoice(constraint: ToolConstraint): ToolChoice | undefined {
  if (constraint === ToolConstraint.Required) return 'required';
  if (constraint === ToolConstraint.None) return 'none';
  return undefined;
}

function toToolMessage(result: ToolResult): ToolMessage {
  return { role: 'tool', toolCallId: result.toolCallId, name: result.name, content: result.content, ...(result.isError ? { isError: true } : {}) };
}

function describeError(error: unknown): { code: string; message: string } {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    return { code: typeof status === 'number' ? `http_${status}` : error.name || 'error', message: error.message };
  }
  return { code: 'error', message: String(error) };
}

type Emit = ((event: LoopEvent) => void) & { onClose(listener: () => void): void };

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
    this.#result.finally(() => {
      this.#finished = true;
      this.#wake?.();
    }).catch(() => undefined);
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
