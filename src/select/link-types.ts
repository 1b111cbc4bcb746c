/**
 * What a tool link is: the tool that needs an input, the tools that produce it, and the links of
 * one registry list, with the options that shape them.
 */
import type { HandleInput } from './handle-inputs.js';

/** One link: `tool` needs one of `providers` first (best first). */
export interface ToolLink {
  /** The tool that needs the input. */
  readonly tool: string;
  /** The required parameter the providers produce (absent for a declared link). */
  readonly parameter?: string;
  /** What the input identifies, in words (absent for a declared link). */
  readonly entity?: string;
  /** Tools that produce it, best first. */
  readonly providers: readonly string[];
  /** Inferred from the registry, or declared by the user. */
  readonly source: 'inferred' | 'declared';
  /** The input is optional: the link is followed only when the prompt names what it is about. */
  readonly optional?: true;
}

/** A link with registry indices, for selection. */
export interface IndexedLink {
  readonly link: ToolLink;
  /** Indices of the providers in the registry list, best first. */
  readonly providers: readonly number[];
  /** Evidence for each provider (higher is stronger). */
  readonly strength: readonly number[];
  /** The input the link serves (inferred links only): the prompt may supply it. */
  readonly input?: HandleInput;
}

/** Every link of one registry list. */
export interface ToolLinks {
  /** Every link, registry order of the tools that need them. */
  readonly links: readonly ToolLink[];
  /** What was ignored, and why (unknown declared tools, cycles, crowded inputs). */
  readonly warnings: readonly string[];
  /** Links by the registry index of the tool needing them. */
  readonly needs: ReadonlyMap<number, readonly IndexedLink[]>;
}

/** How links are made and used. Every field has a default. */
export interface ToolLinkOptions {
  /**
   * Links the user declares: tool name → the tools it needs first, best first. An entry
   * replaces whatever is inferred for that tool, so `[]` says "needs nothing" and corrects a
   * wrong inference. Unknown names are ignored with a warning.
   */
  declared?: Readonly<Record<string, readonly string[]>>;
  /** Infer links from the registry (default true). */
  infer?: boolean;
  /**
   * Prerequisite tools a turn may advertise beyond k (default 2). A prerequisite that is
   * already among the k picks costs nothing.
   */
  budget?: number;
  /**
   * Which picks have their links followed: the best `count`, within `margin` of the top score
   * (each clause's best tool too). Defaults `{ count: 5, margin: 0.3 }`.
   */
  anchors?: { count?: number; margin?: number };
}

/** Dense evidence: unit tool vectors, row-major, registry order. */
export interface ToolVectors {
  readonly matrix: Float32Array;
  readonly dimensions: number;
}
