import { ownEntry } from '../registry/name-record.js';
import type { Selection } from '../select/apply-selection.js';

/** One advertised tool as `select` shows it: its place in the ranking and its evidence. */
export interface RankedTool {
  readonly name: string;
  /** The selector's score (absent for core tools and selectors that do not score). */
  readonly score?: number;
  readonly matched?: readonly string[];
  readonly core?: boolean;
}

/**
 * The advertised tools best first: scored tools by score (ties keep registry order), then the
 * unscored ones (core tools, selectors that only pick) in registry order. The wire still gets
 * registry order; this is the order the selector ranked them in.
 *
 * @example
 * rankSelection(selection).map((tool) => tool.name) // ['stock_price', 'grep_search']
 */
export function rankSelection(selection: Selection): RankedTool[] {
  const tools = selection.names.map((name, position) => {
    const reason = ownEntry(selection.reasons, name);
    const score =
      typeof reason?.score === 'number' && Number.isFinite(reason.score) && !reason.core ? reason.score : undefined;
    return {
      position,
      tool: {
        name,
        ...(score !== undefined ? { score } : {}),
        ...(reason?.matched?.length ? { matched: reason.matched } : {}),
        ...(reason?.core ? { core: true } : {}),
      } as RankedTool,
    };
  });
  tools.sort((a, b) => {
    const x = a.tool.score;
    const y = b.tool.score;
    if (x !== undefined && y !== undefined) return y - x || a.position - b.position;
    if (x !== undefined) return -1;
    if (y !== undefined) return 1;
    return a.position - b.position;
  });
  return tools.map((entry) => entry.tool);
}

/**
 * `select`'s readable ranking: rank, name, score and the words that matched, in columns. A
 * selection nothing scored (a fall-open, the static selector) is listed unranked.
 *
 * @example
 * formatRanking(rankSelection(selection)) // ['1  stock_price  2.000  [price]', …]
 */
export function formatRanking(ranked: readonly RankedTool[]): string[] {
  const width = Math.max(0, ...ranked.map((tool) => tool.name.length));
  const scoredCount = ranked.filter((tool) => tool.score !== undefined).length;
  const rankWidth = scoredCount === 0 ? 0 : String(scoredCount).length;
  return ranked.map((tool, i) => {
    const rank = tool.score !== undefined ? String(i + 1).padStart(rankWidth) : ' '.repeat(rankWidth);
    const score = tool.score !== undefined ? formatScore(tool.score) : tool.core ? 'core' : '';
    const matched = tool.matched ? `  [${tool.matched.join(', ')}]` : '';
    return `${rank}${rankWidth ? '  ' : ''}${tool.name.padEnd(width)}  ${score}${matched}`.trimEnd();
  });
}

function formatScore(score: number): string {
  return Math.abs(score) >= 1000 ? score.toFixed(0) : score.toFixed(3);
}
