// Public exports only; no logic lives here. What a user of the loop builds with: the loop,
// the registry, the selectors and their two contracts, the model clients, a vector cache and
// the token counters. Everything for writing selectors (and running one the way the loop
// does) lives at `loopctl/selector-kit`; each name has exactly one home among the entries.
export type { Message, SystemMessage, UserMessage, AssistantMessage, ToolMessage, ToolCall, ToolResult, TextPart, UserContent } from './message.js';
export type { ToolSchema, JsonSchema } from './registry/schema.js';
export { ToolRegistry } from './registry/registry.js';
export type { ToolHandler, ToolContext, ToolEntry, RegisterOptions, DispatchOptions } from './registry/registry.js';
export type { ToolDefinition, ToolReadResult } from './registry/tool-definition.js';
export type { ArgumentIssue } from './registry/validate.js';
export { approxTokenCounter, o200kTokenCounter } from './tokens/token-counter.js';
export type { TokenCounter } from './tokens/token-counter.js';

export type { SelectionContext, SelectOptions, SelectorResult, SelectorOutput, ToolReason, ToolSelector, AsyncToolSelector } from './select/selector.js';
export { StaticSelector } from './select/static-selector.js';
export { KeywordSelector } from './select/keyword-selector.js';
export type { KeywordSelectorOptions } from './select/keyword-selector.js';
export type { SynonymPair, PhrasePair } from './text/synonyms.js';
export { Bm25Selector } from './select/bm25-selector.js';
export type { Bm25SelectorOptions } from './select/bm25-selector.js';
export { EmbeddingSelector } from './select/embedding-selector.js';
export type { EmbeddingSelectorOptions, EmbeddingAdaptiveOptions } from './select/embedding-selector.js';
export { HybridSelector } from './select/hybrid-selector.js';
export type { HybridSelectorOptions, HybridAdaptiveOptions, MultiIntentOptions } from './select/hybrid-selector.js';
export { RewritingSelector } from './select/rewriting-selector.js';
export type { RewritingSelectorOptions } from './select/rewriting-selector.js';
export type { LearnExample, LearnedVoteOptions } from './learn/example-memory.js';
export type { LearnOptions, LearnSummary, ProjectionState } from './learn/learned-store.js';
export type { ProjectionOptions } from './learn/query-projection.js';

export type { Embedder, EmbedOptions, EmbedProgress, LoadableEmbedder } from './embed/embedder.js';
export type { VectorCache, MemoryVectorCacheOptions } from './embed/vector-cache.js';
export { memoryVectorCache } from './embed/vector-cache.js';
export type { CorpusStats } from './embed/corpus-index.js';
export type { VectorsSource, VectorsBytes } from './embed/vectors-source.js';

export { BareLoop } from './loop/bare-loop.js';
export type { BareLoopOptions, LoopConfig, LoopRun, RunOptions, RunResult } from './loop/bare-loop.js';
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
