/**
 * `loopctl/selector-kit`: what selectors are made of, for writing your own and for running one
 * the way the loop does. The selection contract (`runSelection`, which calls a selector once
 * and fails open on anything malformed; `applySelection`, `withCore`, `checkSelectorResult`,
 * `fullSurface`; `nameRecord` for reasons keyed by tool names, which must have no prototype;
 * `readToolDefinition` for tool definitions in loopctl's, OpenAI's, Anthropic's or MCP's shape),
 * the named table (`namedSelectors`), tokenising and query expansion, ranking (`topK`,
 * `adaptiveCut`), vector maths, the corpus index that caches tool vectors per registry
 * generation, a tool's rendered cost, and abort helpers.
 *
 * @example
 * import type { ToolSelector } from 'loopctl'
 * import { textTokens, toolText, topK } from 'loopctl/selector-kit'
 * const byOverlap: ToolSelector = {
 *   name: 'overlap',
 *   select(ctx, all) {
 *     const query = new Set(textTokens(ctx.latestUserMessage ?? ''))
 *     const scores = all.map((tool) => textTokens(toolText(tool.name, tool.description ?? '')).filter((w) => query.has(w)).length)
 *     return topK(scores, 5).filter((i) => scores[i]! > 0).map((i) => all[i]!)
 *   },
 * }
 */
export { runSelection, checkSelectorResult } from './select/run-selection.js';
export type { RunSelectionOptions, RunSelectionResult, SelectionFault } from './select/run-selection.js';
export { applySelection, fullSurface, withCore } from './select/apply-selection.js';
export type { Selection } from './select/apply-selection.js';
export { namedSelectors, SelectorUnavailableError, UnknownSelectorError } from './select/named-selectors.js';
export type { EmbedderSource, NamedSelectorFactory, NamedSelectorSpec, NamedSelectors, NamedSelectorsOptions } from './select/named-selectors.js';
export type { ToolScores, QueryScores } from './select/embedding-selector.js';
export { messageText } from './message.js';
export { topK, assertTopK } from './rank/top-k.js';
export { adaptiveCut } from './rank/adaptive-k.js';
export type { AdaptiveCutOptions } from './rank/adaptive-k.js';
export { STOPWORDS, splitName, textTokens, toolTokens, toolText } from './text/words.js';
export { stem } from './text/stem.js';
export { splitClauses, splitEnumeration } from './text/clauses.js';
export type { ClauseOptions } from './text/clauses.js';
export { DEFAULT_SYNONYMS, DEFAULT_PHRASES, compileSynonyms, expandQuery } from './text/synonyms.js';
export type { SynonymTable } from './text/synonyms.js';
export { dot, normalise } from './embed/embedder.js';
export { CorpusIndex, CorpusError } from './embed/corpus-index.js';
export type { CorpusIndexOptions } from './embed/corpus-index.js';
export { lengthBuckets } from './embed/length-buckets.js';
export type { LengthBucketOptions } from './embed/length-buckets.js';
export { renderTool, toolCost, toolsCost } from './registry/tool-cost.js';
export { readToolDefinition, TOOL_NAME_RULE, toToolSchema } from './registry/tool-definition.js';
export { BudgetGate } from './limits/budget.js';
export { raceAbort, withDeadline } from './limits/abort.js';
export type { Deadline } from './limits/abort.js';
