import { describeError } from '../describe-error.js';
import { BudgetGate } from '../limits/budget.js';
import type { Message } from '../message.js';
import type { ModelClient } from '../model/client.js';
import { copyNameRecord } from '../registry/name-record.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ToolSchema } from '../registry/schema.js';
import { toolsCost } from '../registry/tool-cost.js';
import type { RunSelectionResult } from '../select/run-selection.js';
import { runSelection } from '../select/run-selection.js';
import type { AsyncToolSelector, SelectionContext, ToolSelector } from '../select/selector.js';
import { dispatchAll, toToolMessage } from './dispatch.js';
import type { BareLoopOptions, LoopConfig, RunOptions, RunResult } from './loop-options.js';
import { resolveLoopConfig } from './loop-options.js';
import type { Emit } from './loop-run.js';
import { LoopRun } from './loop-run.js';
import type { ContextManager } from './managers.js';
import { RunState } from './run-state.js';
import type { SearchDoor, SearchTurn, ToolSearchOptions } from './tool-search.js';
import {
  admitTurn,
  buildRequest,
  contextFigures,
  emitPostDispatchEstimate,
  fitContext,
  receiveReply,
  recordReply,
} from './turn-pipeline.js';

// The loop's public types and its run object keep this module path.
export type { BareLoopOptions, LoopConfig, RunOptions, RunResult } from './loop-options.js';
export { LoopRun } from './loop-run.js';

/** The selector a loop consults, and how it was installed (a Promise from a `sync` one is warned about). */
type InstalledSelector = { kind: 'sync' | 'async'; selector: AsyncToolSelector };

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

  /**
   * Install a synchronous selector, consulted once per turn; it replaces any selector (sync or
   * async) installed before. A Promise it returns anyway is awaited, with a warning. Returns
   * this loop.
   *
   * @example
   * loop.withToolSelector(new KeywordSelector())
   */
  withToolSelector(selector: ToolSelector): this {
    this.setToolSelector(selector);
    return this;
  }

  /**
   * Change the selector to a synchronous one; `undefined` removes selection (every tool is
   * advertised). A run keeps the selector it started with; the change applies from the next run.
   *
   * @example
   * loop.setToolSelector(undefined) // back to the full surface
   */
  setToolSelector(selector: ToolSelector | undefined): void {
    this.#install(selector, 'sync');
  }

  /**
   * Install a selector that may answer with a Promise (embeddings, a model call), consulted
   * once per turn; it replaces any selector installed before. Returns this loop.
   *
   * @example
   * loop.withAsyncToolSelector(new HybridSelector(embedder, { topK: 8 }))
   */
  withAsyncToolSelector(selector: AsyncToolSelector): this {
    this.setAsyncToolSelector(selector);
    return this;
  }

  /**
   * {@link setToolSelector} for a selector that may answer with a Promise.
   *
   * @example
   * loop.setAsyncToolSelector(new EmbeddingSelector(embedder))
   */
  setAsyncToolSelector(selector: AsyncToolSelector | undefined): void {
    this.#install(selector, 'async');
  }

  #install(selector: AsyncToolSelector | undefined, kind: InstalledSelector['kind']): void {
    this.#selector = selector ? { kind, selector } : undefined;
  }

  /**
   * Add the `find_tools` tool to every request: when none of the offered tools fits, the model
   * can search the whole registry (ranked by this loop's selector, or BM25); the top `k` tools
   * found ride every later request of the run. `false` turns it off. Returns this loop.
   *
   * With `deferred: true` the selector's pick is the run's *loaded* set (chosen once, for the
   * conversation's opening prompt) and every other tool is *deferred*: declared with
   * `defer_loading` on Anthropic and Responses, kept back on Chat Completions, reachable through
   * `find_tools` (or, with `hosted`, the provider's own search). Found tools are *revealed*:
   * callable from the next request on; the loaded set never changes within a run.
   *
   * @example
   * const loop = new BareLoop({ client, registry }).withAsyncToolSelector(hybrid).withToolSearch({ k: 5 })
   * const deferring = new BareLoop({ client: anthropic, registry }).withAsyncToolSelector(hybrid).withToolSearch({ deferred: true })
   */
  withToolSearch(options: ToolSearchOptions | false = {}): this {
    const k = options === false ? undefined : options.k;
    // Validated now, not mid-run (the search itself loads with the first run that uses it).
    if (k !== undefined && !(Number.isInteger(k) && k > 0))
      throw new RangeError(`toolSearch k must be a positive integer, got ${k}`);
    const hosted = options === false ? undefined : options.hosted;
    if (hosted !== undefined && hosted !== 'bm25' && hosted !== 'regex')
      throw new RangeError(`toolSearch hosted must be 'bm25' or 'regex', got ${String(hosted)}`);
    this.#toolSearch = options === false ? undefined : { ...options };
    return this;
  }

  /**
   * Opt in to learning from this loop's traffic: a turn whose tool calls all succeed teaches
   * the selector (when it can learn) the run's prompt → the tools called. The examples stay
   * in the selector's own cache. Returns this loop.
   *
   * @example
   * const loop = new BareLoop({ client, registry }).withAsyncToolSelector(hybrid).withLearning()
   */
  withLearning(enabled = true): this {
    this.#learning = enabled;
    return this;
  }

  /** The installed selector, if any. */
  get toolSelector(): AsyncToolSelector | undefined {
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

  /**
   * One run, turn by turn: admit the turn, select, fit the context, request, record the
   * reply, dispatch its calls, re-estimate. Any failure ends the run with an `error` event
   * (or `cancelled`, when the run's signal caused it).
   */
  async #execute(input: string | readonly Message[], options: RunOptions, emit: Emit): Promise<RunResult> {
    const run = new RunState(input, options, resolveLoopConfig(this.config), emit);
    // One run, one selector: a change made mid-run applies from the next run, so every event
    // names the selector that actually served the turn.
    const installed = this.#selector;
    const searchOptions = this.#toolSearch;
    const learning = this.#learning;
    emit({
      type: 'run_start',
      prompt: run.prompt,
      registered: this.registry.size,
      selector: selectorName(installed),
      constraint: run.config.constraint,
    });
    try {
      // Inside the try: an invalid limit ends the run with an error event, like any failure.
      const gate = new BudgetGate(run.config.budget ?? {});
      // Tool search and learning are opt-in: their code loads with the first run that uses them.
      const search = searchOptions ? await openSearch(searchOptions, installed?.selector, this.client) : undefined;
      const recordTurn = learning ? (await import('../learn/learning-recorder.js')).recordTurn : undefined;
      while (true) {
        const stop = admitTurn(run, gate);
        if (stop) return run.finish(stop);
        const all = this.registry.schemas();
        const conversation = run.view();
        const { selection, searched } = await this.#selectTurn(run, installed, all, conversation, search);
        const { view, estimate, figures } = fitContext(run, this.managers, selection, all, conversation);
        const request = buildRequest(
          searched?.wireView(view) ?? view,
          searched?.wireTools ?? selection.tools,
          run.config,
          searched?.deferral,
        );
        emit({
          type: 'request',
          turn: run.turn,
          provider: this.client.provider,
          model: this.client.model,
          messages: view.length,
          tools: selection.tools.length,
          estimatedInputTokens: estimate.tokens,
          anchored: estimate.anchored,
          ...contextFigures(estimate, figures),
          ...(searched?.surface ? { surface: searched.surface } : {}),
        });
        const reply = await receiveReply(this.client, request, run);
        recordReply(run, gate, view, selection, reply);
        if (reply.calls.length === 0) return run.finish('stop');

        const { registry } = this;
        const turn = searched?.dispatch(registry, reply) ?? { registry, selection };
        const results = await dispatchAll(reply.calls, {
          registry: turn.registry,
          selection: turn.selection,
          constraint: run.config.constraint,
          signal: run.signal,
          turn: run.turn,
          emit,
        });
        run.transcript = [...run.transcript, ...results.map(toToolMessage)];
        if (recordTurn && !run.signal.aborted) {
          const problem = await recordTurn(installed?.selector, run.prompt, reply.calls, results, all, run.signal);
          if (problem) emit({ type: 'warning', turn: run.turn, code: 'learning', message: problem });
        }
        if (run.signal.aborted) return run.finish('cancelled');
        emitPostDispatchEstimate(run, selection, figures, registry.schemas(), searched?.surface);
      }
    } catch (error) {
      if (run.signal.aborted) return run.finish('cancelled');
      const described = describeError(error);
      emit({ type: 'error', turn: run.turn, ...described });
      return run.finish('error', described);
    }
  }

  /**
   * Select this turn's tools (through the run's tool search when there is one: `find_tools`
   * widening, or the deferred surface), then report the selection and its warnings.
   */
  async #selectTurn(
    run: RunState,
    installed: InstalledSelector | undefined,
    all: readonly ToolSchema[],
    conversation: readonly Message[],
    search: SearchDoor | undefined,
  ): Promise<{ selection: RunSelectionResult; searched?: SearchTurn }> {
    const { turn, emit } = run;
    const started = performance.now();
    const select = (ctx: Partial<SelectionContext> = {}) =>
      this.#select(installed, { turn, latestUserMessage: run.prompt, conversation, ...ctx }, all, run.signal);
    const searched = search ? await search.turn(all, conversation, select) : undefined;
    const selection = searched ? searched.selection : await select();
    emit({
      type: 'selection',
      turn,
      advertised: [...selection.names],
      registered: all.length,
      advertisedTokens: toolsCost(selection.tools, run.counter),
      registryTokens: toolsCost(all, run.counter),
      selector: selectorName(installed),
      fellOpen: selection.fellOpen ?? null,
      reasons: copyNameRecord(selection.reasons),
      ms: performance.now() - started,
      ...(searched?.surface ? { surface: searched.surface } : {}),
    });
    for (const warning of selection.warnings)
      emit({ type: 'warning', turn, code: selection.fault ?? 'selection', message: warning });
    for (const warning of searched?.warnings ?? []) emit({ type: 'warning', turn, ...warning });
    return searched ? { selection, searched } : { selection };
  }

  #select(
    installed: InstalledSelector | undefined,
    ctx: SelectionContext,
    all: readonly ToolSchema[],
    signal: AbortSignal,
  ): Promise<RunSelectionResult> {
    return runSelection(installed?.selector, ctx, all, { signal, installedAs: installed?.kind ?? 'async' });
  }
}

/** The run's tool search, loaded on first use: deferred loading, or `find_tools` widening. */
async function openSearch(
  options: ToolSearchOptions,
  selector: AsyncToolSelector | undefined,
  client: ModelClient,
): Promise<SearchDoor> {
  return options.deferred
    ? new (await import('./deferred-search.js')).DeferredSearch(options, selector, client)
    : new (await import('./tool-search.js')).ToolSearch(options, selector);
}

function selectorName(installed: InstalledSelector | undefined): string | null {
  return installed ? (installed.selector.name ?? 'custom') : null;
}
