// Public exports only; no logic lives here. What a user of the loop builds with: the loop,
// the registry, the selectors and their two contracts, the model clients, a vector cache and
// the token counters. Everything for writing selectors (and running one the way the loop
// does) lives at `loopctl/selector-kit`; each name has exactly one home among the entries.

export type { CorpusStats } from './embed/corpus-index.js';
export type { Embedder, EmbedOptions, EmbedProgress, LoadableEmbedder } from './embed/embedder.js';
export type { MemoryVectorCacheOptions, VectorCache } from './embed/vector-cache.js';
export { memoryVectorCache } from './embed/vector-cache.js';
export type { VectorsBytes, VectorsSource } from './embed/vectors-source.js';
export type { LearnExample, LearnedVoteOptions } from './learn/example-memory.js';
export type { LearnOptions, LearnSummary, ProjectionState } from './learn/learned-store.js';
export type { ProjectionOptions } from './learn/query-projection.js';
export type { PairOptions } from './learn/tool-pairs.js';
export type { BudgetLimits, BudgetRefusal } from './limits/budget.js';
export type { BareLoopOptions, LoopConfig, LoopRun, RunOptions, RunResult } from './loop/bare-loop.js';
export { BareLoop } from './loop/bare-loop.js';
export { ToolConstraint } from './loop/constraint.js';
export type { ContextEstimate } from './loop/estimate.js';
export type { LoopEvent, LoopEventType, StopReason } from './loop/events.js';
export type { Compaction, CompactionRequest, ContextManager, ToolResultCompactorOptions } from './loop/managers.js';
export { toolResultCompactor } from './loop/managers.js';
export type { ToolSearchOptions } from './loop/tool-search.js';
export type {
  AssistantMessage,
  Message,
  SystemMessage,
  TextPart,
  ToolCall,
  ToolMessage,
  ToolResult,
  UserContent,
  UserMessage,
} from './message.js';
export type { AnthropicMessagesOptions } from './model/anthropic-messages.js';
export { anthropicMessagesClient } from './model/anthropic-messages.js';
export type {
  FinishReason,
  ModelCallOptions,
  ModelClient,
  ModelEvent,
  ModelRequest,
  ModelResponse,
  ModelUsage,
  Provider,
  ToolChoice,
} from './model/client.js';
export { collectResponse, ModelError, ModelHttpError, ModelNetworkError, ModelStreamError } from './model/client.js';
export type { OpenAIChatOptions } from './model/openai-chat.js';
export { openAIChatClient } from './model/openai-chat.js';
export type { RetryOptions } from './model/retry.js';
export type { DispatchOptions, RegisterOptions, ToolContext, ToolEntry, ToolHandler } from './registry/registry.js';
export { ToolRegistry } from './registry/registry.js';
export type { JsonSchema, ToolSchema } from './registry/schema.js';
export type { ToolDefinition, ToolReadResult } from './registry/tool-definition.js';
export type { ToolNeeds } from './registry/tool-needs.js';
export type { ArgumentIssue } from './registry/validate.js';
export type { Bm25SelectorOptions } from './select/bm25-selector.js';
export { Bm25Selector } from './select/bm25-selector.js';
export type { EmbeddingAdaptiveOptions, EmbeddingSelectorOptions } from './select/embedding-selector.js';
export { EmbeddingSelector } from './select/embedding-selector.js';
export type { HybridAdaptiveOptions, HybridSelectorOptions, MultiIntentOptions } from './select/hybrid-selector.js';
export { HybridSelector } from './select/hybrid-selector.js';
export type { KeywordSelectorOptions } from './select/keyword-selector.js';
export { KeywordSelector } from './select/keyword-selector.js';
export type { RewritingSelectorOptions } from './select/rewriting-selector.js';
export { RewritingSelector } from './select/rewriting-selector.js';
export type {
  AsyncToolSelector,
  SelectionContext,
  SelectOptions,
  SelectorOutput,
  SelectorResult,
  ToolReason,
  ToolSelector,
} from './select/selector.js';
export { StaticSelector } from './select/static-selector.js';
export type { HandleInput, ToolLink, ToolLinkOptions, ToolLinks } from './select/tool-links.js';
export type { LexicalRules, Lexicon } from './text/lexicon.js';
export type { PhrasePair, SynonymPair } from './text/synonyms.js';
export type { TokenCounter } from './tokens/token-counter.js';
export { approxTokenCounter, o200kTokenCounter } from './tokens/token-counter.js';
