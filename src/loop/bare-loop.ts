import type { Message } from '../message.js';
import type { Selection } from '../select/apply-selection.js';
import { applySelection } from '../select/apply-selection.js';
import type { AsyncToolSelector, SelectionContext, SelectorOutput, ToolSelector } from '../select/selector.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ToolSchema } from '../registry/schema.js';
import { toolsCost } from '../registry/tool-cost.js';
import { BudgetGate } from '../limits/budget.js';
import { raceAbort } from '../limits/race-abort.js';
import type { ModelClient } from '../model/client.js';
import { dispatchAll, toToolMessage } from './dispatch.js';
import type { BareLoopOptions, LoopConfig, RunOptions, RunResult } from './loop-options.js';
import { resolveLoopConfig } from './loop-options.js';
import type { Emit } from './loop-run.js';
import { LoopRun } from './loop-run.js';
import type { ContextManager } from './managers.js';
import { RunState } from './run-state.js';
import {
  admitTurn,
  buildRequest,
  contextFigures,
  describeError,
  emitPostDispatchEstimate,
  fitContext,
  receiveReply,
  recordReply,
} from './turn-pipeline.js';

// The loop's public types and its run object keep this module path.
export type { BareLoopOptions, LoopConfig, RunOptions, RunResult } from './loop-options.js';
export { LoopRun } from './loop-run.js';

type InstalledSelector = { kind: 'sync'; selector: ToolSelector } | { kind: 'async'; selector: AsyncToolSelector };

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
      while (true) {
        const stop = admitTurn(run, gate);
        if (stop) return run.finish(stop);
        const all = this.registry.schemas();
        const conversation = run.view();
        const selection = await this.#selectTurn(run, installed, all, conversation);
        const { view, estimate, figures } = fitContext(run, this.managers, selection, all, conversation);
        const request = buildRequest(view, selection.tools, run.config);
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
        });
        const reply = await receiveReply(this.client, request, run);
        recordReply(run, gate, view, selection, reply);
        if (reply.calls.length === 0) return run.finish('stop');

        const { registry } = this;
        const results = await dispatchAll(reply.calls, { registry, selection, constraint: run.config.constraint, signal: run.signal, turn: run.turn, emit });
        run.transcript = [...run.transcript, ...results.map(toToolMessage)];
        if (run.signal.aborted) return run.finish('cancelled');
        emitPostDispatchEstimate(run, selection, figures, registry.schemas());
      }
    } catch (error) {
      if (run.signal.aborted) return run.finish('cancelled');
      const described = describeError(error);
      emit({ type: 'error', turn: run.turn, ...described });
      return run.finish('error', described);
    }
  }

  /** Select this turn's tools, then report the selection (and any warnings it carries). */
  async #selectTurn(
    run: RunState,
    installed: InstalledSelector | undefined,
    all: readonly ToolSchema[],
    conversation: readonly Message[],
  ): Promise<Selection> {
    const { turn, emit } = run;
    const ctx: SelectionContext = { turn, latestUserMessage: run.prompt, conversation };
    const started = performance.now();
    const selection = await this.#select(installed, ctx, all, run.signal, (code, message) => emit({ type: 'warning', turn, code, message }));
    emit({
      type: 'selection',
      turn,
      advertised: [...selection.names],
      registered: all.length,
      advertisedTokens: toolsCost(selection.tools, run.counter),
      registryTokens: toolsCost(all, run.counter),
      selector: selectorName(installed),
      fellOpen: selection.fellOpen ?? null,
      reasons: { ...selection.reasons },
      ms: performance.now() - started,
    });
    for (const warning of selection.warnings) emit({ type: 'warning', turn, code: 'selection', message: warning });
    return selection;
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
}

function selectorName(installed: InstalledSelector | undefined): string | null {
  return installed ? (installed.selector.name ?? 'custom') : null;
}
