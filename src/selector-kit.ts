/**
 * `loopctl/selector-kit`: the pieces the built-in selectors are made of, for writing your own.
 * The selection contract (`applySelection`, `withCore`, `checkSelectorResult`), tokenising
 * and query expansion, request actions, tool links and learned pairs, ranking (`topK`, `adaptiveCut`), vector maths, the corpus index that
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
export { checkSelectorResult } from './select/run-selection.js';
export { topK, assertTopK } from './select/top-k.js';
export { adaptiveCut } from './select/adaptive-k.js';
export type { AdaptiveCutOptions } from './select/adaptive-k.js';
export { STOPWORDS, splitName, textTokens, toolTokens, toolText } from './text/words.js';
export { stem } from './text/stem.js';
export { splitClauses, splitEnumeration } from './text/clauses.js';
export { requestAction, toolActions } from './text/actions.js';
export { toolNeedsOf } from './registry/tool-needs.js';
export { handleInputs, inferToolLinks, prerequisitesFor, suppliedIn, LINK_DEFAULTS } from './select/tool-links.js';
export type { IndexedLink, Prerequisites, ToolVectors } from './select/tool-links.js';
export { pairTable, partnerLifts, PAIR_DEFAULTS } from './select/tool-pairs.js';
export type { PairTable } from './select/tool-pairs.js';
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
