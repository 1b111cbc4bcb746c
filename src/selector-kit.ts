/**
 * `loopctl/selector-kit`: the pieces the built-in selectors are made of, for writing your own.
 * The selection contract (`applySelection`, `withCore`, `checkSelectorResult`; `nameRecord` for
 * reasons keyed by tool names, which must have no prototype), tokenising
 * and query expansion, ranking (`topK`, `adaptiveCut`), vector maths, the corpus index that
 * caches tool vectors per registry generation, a tool's rendered cost, and abort helpers.
 *
 * @example
 * import { textTokens, toolText, topK } from 'loopctl/selector-kit'
 * const byOverlap: Selector = {
 *   name: 'overlap',
 *   select(ctx, all) {
 *     const query = new Set(textTokens(ctx.latestUserMessage ?? ''))
 *     const scores = all.map((tool) => textTokens(toolText(tool.name, tool.description ?? '')).filter((w) => query.has(w)).length)
 *     return topK(scores, 5).filter((i) => scores[i]! > 0).map((i) => all[i]!)
 *   },
 * }
 */
export { applySelection, withCore } from './select/apply-selection.js';
export { copyNameRecord, nameRecord, ownEntry } from './registry/name-record.js';
export { checkSelectorResult } from './select/run-selection.js';
export { topK, assertTopK } from './select/top-k.js';
export { adaptiveCut } from './select/adaptive-k.js';
export type { AdaptiveCutOptions } from './select/adaptive-k.js';
export { STOPWORDS, splitName, textTokens, toolTokens, toolText } from './text/words.js';
export { stem } from './text/stem.js';
export { splitClauses, splitEnumeration } from './text/clauses.js';
export type { ClauseOptions } from './text/clauses.js';
export { DEFAULT_SYNONYMS, DEFAULT_PHRASES, compileSynonyms, expandQuery } from './text/synonyms.js';
export type { SynonymPair, PhrasePair, SynonymTable } from './text/synonyms.js';
export { dot, normalise } from './embed/embedder.js';
export { CorpusIndex, CorpusError } from './embed/corpus-index.js';
export { lengthBuckets } from './embed/length-buckets.js';
export type { LengthBucketOptions } from './embed/length-buckets.js';
export type { CorpusStats, CorpusIndexOptions } from './embed/corpus-index.js';
export { renderTool, toolCost } from './registry/tool-cost.js';
export { BudgetGate } from './limits/budget.js';
export { raceAbort, withDeadline } from './limits/abort.js';
export type { Deadline } from './limits/abort.js';
