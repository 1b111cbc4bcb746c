import type { Message } from '../message.js';
import type { ToolSchema } from '../registry/schema.js';

/**
 * What a selector is told about the turn it selects for.
 *
 * `latestUserMessage` is the run's opening prompt on every turn, never a tool result's text.
 * `conversation` is what the request carries, transients (attachments, memories) included.
 */
export interface SelectionContext {
  /** Turn number within the run, from 1. */
  readonly turn: number;
  /** The run's opening prompt. */
  readonly latestUserMessage: string | undefined;
  /** The messages the request carries this turn. */
  readonly conversation: readonly Message[];
}

/** Why one tool was advertised: the evidence a selector ranked it by. */
export interface ToolReason {
  /** The selector's score for the tool (higher is better). */
  score?: number;
  /** Query words (after expansion) that matched the tool's words. */
  matched?: readonly string[];
  /** The tool came from the core set, not from the ranking. */
  core?: boolean;
  /** The evidence a blended score was made of (e.g. `{ lexical, dense }`), each in 0..1. */
  parts?: Readonly<Record<string, number>>;
  /**
   * Selected tools that need this one first: it produces an input of theirs the prompt does
   * not give (an id, a ticker), so an agent calls it before them.
   */
  neededBy?: readonly string[];
  /** The tool was advertised beyond k as a prerequisite (see `neededBy`). */
  prerequisite?: boolean;
  /** The tool was advertised beyond k as the best tool of one clause of the prompt. */
  intent?: boolean;
  /** The tool was advertised beyond k in a prompt of several parts, scoring just below the k-th pick. */
  near?: boolean;
}

/**
 * What a selector may return in place of a plain list: the tools, plus why. A selector that
 * falls open says so in `fellOpen` (the reason), so the loop can emit a warning.
 */
export interface SelectorOutput {
  readonly tools: readonly ToolSchema[];
  /** Set when the selector served the full surface because it could not rank. */
  readonly fellOpen?: string;
  /** Per-tool evidence, keyed by tool name. */
  readonly reasons?: Readonly<Record<string, ToolReason>>;
  /** Degradations that did not fall open (e.g. a hybrid running lexical-only). */
  readonly warnings?: readonly string[];
}

/** Options every selector call receives. */
export interface SelectOptions {
  /** Aborted when the run (or request) is cancelled; nobody waits for the selector after that. */
  readonly signal: AbortSignal;
}

/**
 * What `select` returns: the tools to advertise, or the tools with their evidence (a
 * {@link SelectorOutput}). A list of tool *names* is accepted too (each must be a registered
 * name).
 */
export type SelectorResult = readonly ToolSchema[] | SelectorOutput;

/**
 * A selector that answers synchronously (keyword, BM25, static): narrow the registry's
 * schemas to what this turn advertises. Return members of `all`, as a list or a
 * {@link SelectorOutput}; an empty list advertises no tools. Keep it deterministic. Anything
 * malformed (or a throw) makes the loop serve the full surface with a warning. Install it
 * with `withToolSelector`.
 *
 * @example
 * const onlyWeather: ToolSelector = {
 *   name: 'only-weather',
 *   select: (_ctx, all) => all.filter((tool) => tool.name.startsWith('weather_')),
 * }
 * loop.withToolSelector(onlyWeather)
 */
export interface ToolSelector {
  readonly name?: string;
  select(ctx: SelectionContext, all: readonly ToolSchema[], options?: SelectOptions): SelectorResult;
}

/**
 * A selector that may answer with a Promise (embeddings, an LLM call). Determinism is relaxed;
 * the signal tells it the run was cancelled, and the loop stops waiting then. Every
 * {@link ToolSelector} is one too (an answer need not be a Promise). Install it with
 * `withAsyncToolSelector`.
 *
 * @example
 * const remote: AsyncToolSelector = {
 *   name: 'remote',
 *   async select(ctx, all, { signal }) {
 *     const res = await fetch('/pick', { method: 'POST', body: ctx.latestUserMessage, signal })
 *     const names = new Set<string>(await res.json())
 *     return all.filter((tool) => names.has(tool.name))
 *   },
 * }
 * loop.withAsyncToolSelector(remote)
 */
export interface AsyncToolSelector {
  readonly name?: string;
  select(
    ctx: SelectionContext,
    all: readonly ToolSchema[],
    options: SelectOptions,
  ): SelectorResult | Promise<SelectorResult>;
}
