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
}

/**
 * What a built-in selector returns: the tools, plus why. A selector that falls open says so
 * in `fellOpen` (the reason), so the loop can emit a warning.
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

/**
 * A synchronous selector: narrows the registry's schemas to what this turn advertises.
 * Return members of `all`; an empty return advertises no tools. Keep it deterministic.
 *
 * Built-in selectors also implement `selectDetailed`, which the loop prefers, so reasons
 * come with the one call the turn makes.
 *
 * @example
 * const onlyWeather: ToolSelector = {
 *   name: 'only-weather',
 *   select: (_ctx, all) => all.filter((tool) => tool.name.startsWith('weather_')),
 * }
 */
export interface ToolSelector {
  readonly name?: string;
  select(ctx: SelectionContext, all: readonly ToolSchema[]): readonly ToolSchema[];
  selectDetailed?(ctx: SelectionContext, all: readonly ToolSchema[]): SelectorOutput;
}

/** Options the loop hands an async selector. */
export interface AsyncSelectOptions {
  /** Aborted when the run is cancelled; the loop does not wait for the selector after that. */
  readonly signal: AbortSignal;
}

/**
 * An asynchronous selector (embeddings, an LLM call). Determinism is relaxed; fail-open is
 * the selector's job: on an error it cannot rank through, return the full surface.
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
 */
export interface AsyncToolSelector {
  readonly name?: string;
  select(
    ctx: SelectionContext,
    all: readonly ToolSchema[],
    options: AsyncSelectOptions,
  ): Promise<readonly ToolSchema[]>;
  selectDetailed?(
    ctx: SelectionContext,
    all: readonly ToolSchema[],
    options: AsyncSelectOptions,
  ): Promise<SelectorOutput>;
}
