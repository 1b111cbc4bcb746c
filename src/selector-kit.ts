/**
 * `loopctl/selector-kit`: what selectors are made of, for writing your own and for running one
 * the way the loop does. The selection contract (`runSelection`, which calls a selector once
 * and fails open on anything malformed; `applySelection`, `withCore`, `checkSelectorResult`,
 * `fullSurface`; `nameRecord` for reasons keyed by tool names, which must have no prototype;
 * `readToolDefinition` for tool definitions in loopctl's, OpenAI's, Anthropic's or MCP's shape),
 * the named table (`namedSelectors`), tokenising and query expansion, request actions, tool
 * links (`withToolNeeds` declares them on a tool list) and learned pairs, ranking (`topK`,
 * `adaptiveCut`), vector maths, the corpus index that caches tool vectors per registry
 * generation, a tool's rendered cost, abort helpers, and `searchTools`: the one tool search
 * behind `find_tools` and the SDK adapters, for a search door of your own.
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

export type { CorpusIndexOptions } from './embed/corpus-index.js';
export { CorpusError, CorpusIndex } from './embed/corpus-index.js';
export { dot, normalise } from './embed/embedder.js';
export type { LengthBucketOptions } from './embed/length-buckets.js';
export { lengthBuckets } from './embed/length-buckets.js';
export type { PairTable } from './learn/tool-pairs.js';
export { PAIR_DEFAULTS, pairTable, partnerLifts } from './learn/tool-pairs.js';
export type { Deadline } from './limits/abort.js';
export { raceAbort, withDeadline } from './limits/abort.js';
export { BudgetGate } from './limits/budget.js';
export { messageText } from './message.js';
export type { AdaptiveCutOptions } from './rank/adaptive-k.js';
export { adaptiveCut } from './rank/adaptive-k.js';
export { assertTopK, topK } from './rank/top-k.js';
export { renderTool, toolCost, toolsCost } from './registry/tool-cost.js';
export { readToolDefinition, TOOL_NAME_RULE, toToolSchema } from './registry/tool-definition.js';
export { toolNeedsOf, withToolNeeds } from './registry/tool-needs.js';
export type { Selection } from './select/apply-selection.js';
export { applySelection, fullSurface, withCore } from './select/apply-selection.js';
export type { QueryScores, ToolScores } from './select/embedding-selector.js';
export type {
  EmbedderSource,
  NamedSelectorFactory,
  NamedSelectorSpec,
  NamedSelectors,
  NamedSelectorsOptions,
} from './select/named-selectors.js';
export { namedSelectors, SelectorUnavailableError, UnknownSelectorError } from './select/named-selectors.js';
export type { RunSelectionOptions, RunSelectionResult, SelectionFault } from './select/run-selection.js';
export { checkSelectorResult, runSelection } from './select/run-selection.js';
export type { SearchToolsOptions, ToolSearchHit } from './select/search-tools.js';
export { MAX_SEARCH_QUERY_CHARS, searchTools } from './select/search-tools.js';
export type { IndexedLink, Prerequisites, ToolVectors } from './select/tool-links.js';
export { handleInputs, inferToolLinks, LINK_DEFAULTS, prerequisitesFor } from './select/tool-links.js';
export type { ClauseOptions } from './text/clauses.js';
export { splitClauses, splitEnumeration } from './text/clauses.js';
export { english, englishLoaded } from './text/english.js';
export { DEFAULT_PHRASES, DEFAULT_SYNONYMS, STOPWORDS } from './text/english-lexicon.js';
export { englishRules } from './text/english-rules.js';
export type { LoadedLexicon } from './text/lexicon.js';
export { coversText, loadLexicon } from './text/lexicon.js';
export { stem } from './text/stem.js';
export type { SynonymTable } from './text/synonyms.js';
export { compileSynonyms, expandQuery } from './text/synonyms.js';
export { splitName, textTokens, toolText, toolTokens } from './text/words.js';
