/**
 * The advertised tools in the selector's ranking order, for `/v1/select`. A selection lists its
 * tools in registry order (what a request carries, stable for prompt caches); a caller tuning a
 * selector wants to see which tool ranked first, and by how much.
 */
import type { Selection } from '../select/apply-selection.js';

/** One advertised tool and its score, when the selector scored it. */
export interface RankedTool {
  readonly name: string;
  readonly score?: number;
}

/**
 * The advertised tools best first: by score, highest first; tools without a score (core tools,
 * a selector that does not score, a fall-open) follow in registry order.
 *
 * @example
 * rankedTools(selection) // [{ name: 'get_current_weather', score: 7.2 }, { name: 'get_weather_forecast', score: 3.1 }]
 */
export function rankedTools(selection: Pick<Selection, 'names' | 'reasons'>): RankedTool[] {
  const entries = selection.names.map((name, index) => {
    const score = Object.hasOwn(selection.reasons, name) ? selection.reasons[name]?.score : undefined;
    return { name, index, score: typeof score === 'number' && Number.isFinite(score) ? score : undefined };
  });
  entries.sort((a, b) => {
    if (a.score !== undefined && b.score !== undefined) return b.score - a.score || a.index - b.index;
    if (a.score !== undefined) return -1;
    if (b.score !== undefined) return 1;
    return a.index - b.index;
  });
  return entries.map(({ name, score }) => (score === undefined ? { name } : { name, score }));
}
