// Public exports only; no logic lives here. What a user builds with: the loop, the registry,
// the selectors and their one contract, the model clients, caches and token counters.
// Helpers for writing selectors live at `loopctl/selector-kit`.
export type { Message, SystemMessage, UserMessage, AssistantMessage, ToolMessage, ToolCall, ToolResult, TextPart, UserContent } from './message.js';
export { messageText } from './message.js';
export type { ToolSchema, JsonSchema } from './registry/schema.js';
export { ToolRegistry } from './registry/registry.js';
export type { ToolHandler, ToolContext, ToolEntry, RegisterOptions, DispatchOptions } from './registry/registry.js';
export { withToolNeeds } from './registry/tool-needs.js';
export type { ToolNeeds } from './registry/tool-needs.js';
export type { ArgumentIssue } from './registry/validate.js';
export { toolsCost } from './registry/tool-cost.js';
export { approxTokenCounter, o200kTokenCounter } from './tokens/token-counter.js';
export type { TokenCounter } from './tokens/token-counter.js';

export type {
  SelectionContext,
  Selector,
  SelectorResult,
  SelectOptions,
  ToolSelector,
  AsyncToolSelector,
  AsyncSelectOptions,
  SelectorOutput,
  ToolReason,
} from './select/selector.js';
export type { Selection } from './select/apply-selection.js';
export { runSelection } from './select/run-selection.js';
export type { RunSelectionOptions, RunSelectionResult, SelectionFault } from './select/run-selection.js';
export { namedSelectors, SelectorUnavailableError, UnknownSelectorError } from './select/named-selectors.js';
export type { EmbedderSource, NamedSelectorFactory, NamedSelectorSpec, NamedSelectors, NamedSelectorsOptions } from './select/named-selectors.js';
export { StaticSelector } from './select/static-selector.js';
export { KeywordSelector } from './select/keyword-selector.js';
export type { KeywordSelectorOptions } from './select/keyword-selector.js';
export type { SynonymPair, PhrasePair } from './text/synonyms.js';
export { Bm25Selector } from './select/bm25-selector.js';
export type { Bm25SelectorOptions } from './select/bm25-selector.js';
export { EmbeddingSelector } from './select/embedding-selector.js';
export type { EmbeddingSelectorOptions, EmbeddingAdaptiveOptions, ToolScores, QueryScores } from './select/embedding-selector.js';
export type { LearnExample, LearnedVoteOptions } from './select/example-memory.js';
export type { LearnOptions, LearnSummary, ProjectionState } from './select/learned-store.js';
export type { ProjectionOptions } from './select/query-projection.js';
export { HybridSelector, HYBRID_DEFAULTS } from './select/hybrid-selector.js';
export type { HybridSelectorOptions, HybridAdaptiveOptions, MultiIntentOptions } from './select/hybrid-selector.js';
export type { ToolLink, ToolLinks, ToolLinkOptions, HandleInput } from './select/tool-links.js';
export type { PairOptions } from './select/tool-pairs.js';
export type { ClauseOptions } from './text/clauses.js';
export { RewritingSelector } from './select/rewriting-selector.js';
export type { RewritingSelectorOptions } from './select/rewriting-selector.js';

export type { Embedder, EmbedOptions, EmbedProgress, LoadableEmbedder } from './embed/embedder.js';
export type { VectorCache, MemoryVectorCacheOptions } from './embed/vector-cache.js';
export { memoryVectorCache } from './embed/vector-cache.js';
export type { CorpusStats } from './embed/corpus-index.js';
export type { VectorsSource, VectorsBytes } from './embed/vectors-source.js';

export { BareLoop, LoopRun } from './loop/bare-loop.js';
export type { BareLoopOptions, LoopConfig, RunOptions, RunResult } from './loop/bare-loop.js';
export type { ToolSearchOptions } from './loop/tool-search.js';
export type { LoopEvent, LoopEventType, StopReason } from './loop/events.js';
export { ToolConstraint } from './loop/constraint.js';
export type { BudgetLimits, BudgetRefusal } from './limits/budget.js';
export type { ContextEstimate } from './loop/estimate.js';
export { toolResultCompactor } from './loop/managers.js';
export type { ContextManager, Compaction, CompactionRequest, ToolResultCompactorOptions } from './loop/managers.js';

export type { ModelClient, ModelRequest, ModelResponse, ModelEvent, ModelUsage, ModelCallOptions, FinishReason, Provider, ToolChoice } from './model/client.js';
export { ModelError, ModelHttpError, ModelStreamError, ModelNetworkError, collectResponse } from './model/client.js';
export { openAIChatClient } from './model/openai-chat.js';
export type { OpenAIChatOptions } from './model/openai-chat.js';
export { anthropicMessagesClient } from './model/anthropic-messages.js';
export type { AnthropicMessagesOptions } from './model/anthropic-messages.js';
export type { RetryOptions } from './model/retry.js';
