import type { ToolSchema } from '../registry/schema.js';
import { toolsCost } from '../registry/tool-cost.js';
import type { Selection } from '../select/apply-selection.js';
import { runSelection } from '../select/run-selection.js';
import type { AsyncToolSelector } from '../select/selector.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { EvalCase } from './eval-data.js';

/** The figures one selector earns on one set. */
export interface EvalReport {
  selector: string;
  k: number | null;
  cases: number;
  /** Share of cases whose expected tools are all advertised (a case that fell open counts). */
  fullRecall: number;
  /**
   * Share of cases whose expected tools are all advertised by a selection that narrowed: a case
   * where the selector fell open (advertised every tool) counts as a miss. A selector that falls
   * open on what it cannot rank scores a high `fullRecall` without narrowing anything; this
   * figure does not.
   */
  narrowedFullRecall: number;
  /** Share of expected tools advertised. */
  recall: number;
  meanAdvertised: number;
  /** Share of cases where the selector fell open to the full surface. */
  fellOpen: number;
  registryTokens: number;
  meanAdvertisedTokens: number;
  /** 1 − mean advertised tokens / registry tokens. */
  tokensSaved: number;
  p50Ms: number;
  p95Ms: number;
  /**
   * Full recall split by how many tools a case expects (`'1'`, `'2'`, `'3+'`): a prompt that
   * needs a lookup first, or several intents, is harder than a one-tool prompt, and a mean over
   * a set that is mostly one-tool prompts hides it.
   */
  byExpected: Readonly<Record<ExpectedGroup, GroupRecall>>;
  /** The cases whose expected tools were not all advertised, in file order (when asked for). */
  misses?: EvalMiss[];
  /** The cases where the selector fell open, in file order (when misses are asked for). */
  fellOpenCases?: EvalFellOpen[];
}

/** How many tools a case expects, grouped: one, two, three or more. */
export type ExpectedGroup = '1' | '2' | '3+';

/** Full recall over the cases of one {@link ExpectedGroup}. */
export interface GroupRecall {
  readonly cases: number;
  /** Share of the group's cases whose expected tools are all advertised (0 when the group is empty). */
  readonly fullRecall: number;
  /** Mean tools advertised over the group's cases (0 when empty): what a multi-tool prompt costs. */
  readonly meanAdvertised: number;
}

/** The groups of {@link EvalReport.byExpected}, in order. */
export const EXPECTED_GROUPS: readonly ExpectedGroup[] = ['1', '2', '3+'];

/** The group of a case expecting `count` tools (a case expecting none counts with one). */
export function expectedGroup(count: number): ExpectedGroup {
  return count >= 3 ? '3+' : count === 2 ? '2' : '1';
}

/** A case the selector missed: what it expected, what was advertised, what was left out. */
export interface EvalMiss {
  readonly id: string;
  readonly query: string;
  readonly expected: readonly string[];
  readonly advertised: readonly string[];
  readonly missing: readonly string[];
}

/** A case where the selector fell open (advertised every tool), and why it did. */
export interface EvalFellOpen {
  readonly id: string;
  readonly query: string;
  readonly expected: readonly string[];
  readonly reason: string;
}

/** Options for {@link evaluate}. */
export interface EvaluateOptions {
  /**
   * List the missed cases in `report.misses` and the fell-open ones in `report.fellOpenCases`
   * (off by default: big sets miss thousands).
   */
  misses?: boolean;
}

/** One selection for `query` as the loop's first turn would make it. */
export function selectFor(
  selector: AsyncToolSelector,
  query: string,
  all: readonly ToolSchema[],
  signal: AbortSignal,
): Promise<Selection> {
  const ctx = { turn: 1, latestUserMessage: query, conversation: [{ role: 'user' as const, content: query }] };
  return runSelection(selector, ctx, all, { signal });
}

/**
 * Evaluate a selector on labelled cases: recall, advertised counts, tokens, selection time.
 *
 * @example
 * const report = await evaluate(new Bm25Selector(), tools, cases, counter, { name: 'bm25', k: 8 })
 */
export async function evaluate(
  selector: AsyncToolSelector,
  tools: readonly ToolSchema[],
  cases: readonly EvalCase[],
  counter: TokenCounter,
  label: { name: string; k: number | null },
  options: EvaluateOptions = {},
): Promise<EvalReport> {
  const signal = new AbortController().signal;
  const registryTokens = toolsCost(tools, counter);
  // Warm up once (index building, corpus embedding) so timings show a warm turn.
  if (cases[0]) await selectFor(selector, cases[0].query, tools, signal);

  let full = 0;
  let narrowed = 0;
  let hit = 0;
  let expectedTotal = 0;
  let advertised = 0;
  let advertisedTokens = 0;
  let fellOpen = 0;
  const groups = {
    '1': { cases: 0, full: 0, advertised: 0 },
    '2': { cases: 0, full: 0, advertised: 0 },
    '3+': { cases: 0, full: 0, advertised: 0 },
  };
  const times: number[] = [];
  const misses: EvalMiss[] = [];
  const fellOpenCases: EvalFellOpen[] = [];
  for (const item of cases) {
    const start = performance.now();
    const selection = await selectFor(selector, item.query, tools, signal);
    times.push(performance.now() - start);
    const names = new Set(selection.names);
    const found = item.expected.filter((name) => names.has(name)).length;
    hit += found;
    expectedTotal += item.expected.length;
    const group = groups[expectedGroup(item.expected.length)];
    group.cases += 1;
    if (found === item.expected.length) {
      full += 1;
      group.full += 1;
      if (!selection.fellOpen) narrowed += 1;
    } else if (options.misses) {
      const missing = item.expected.filter((name) => !names.has(name));
      misses.push({ id: item.id, query: item.query, expected: item.expected, advertised: selection.names, missing });
    }
    advertised += selection.tools.length;
    group.advertised += selection.tools.length;
    advertisedTokens += toolsCost(selection.tools, counter);
    if (selection.fellOpen) {
      fellOpen += 1;
      if (options.misses)
        fellOpenCases.push({ id: item.id, query: item.query, expected: item.expected, reason: selection.fellOpen });
    }
  }
  const n = Math.max(cases.length, 1);
  const meanAdvertisedTokens = advertisedTokens / n;
  return {
    selector: label.name,
    k: label.k,
    cases: cases.length,
    fullRecall: full / n,
    narrowedFullRecall: narrowed / n,
    recall: hit / Math.max(expectedTotal, 1),
    meanAdvertised: advertised / n,
    fellOpen: fellOpen / n,
    registryTokens,
    meanAdvertisedTokens,
    tokensSaved: registryTokens === 0 ? 0 : 1 - meanAdvertisedTokens / registryTokens,
    p50Ms: percentile(times, 0.5),
    p95Ms: percentile(times, 0.95),
    byExpected: {
      '1': groupRecall(groups['1']),
      '2': groupRecall(groups['2']),
      '3+': groupRecall(groups['3+']),
    },
    ...(options.misses ? { misses, fellOpenCases } : {}),
  };
}

// One group's figures from its counts.
function groupRecall(group: { cases: number; full: number; advertised: number }): GroupRecall {
  const n = Math.max(group.cases, 1);
  return { cases: group.cases, fullRecall: group.full / n, meanAdvertised: group.advertised / n };
}

/** Nearest-rank percentile of a sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank] as number;
}
