// Public exports only; no logic lives here.
export type { Message, SystemMessage, UserMessage, AssistantMessage, ToolMessage, ToolCall, ToolResult, TextPart, UserContent } from './message.js';
export { messageText } from './message.js';
export type { ToolSchema, JsonSchema } from './registry/schema.js';
export { stableStringify, sameSchema } from './registry/schema.js';
export { ToolRegistry } from './registry/registry.js';
export type { ToolHandler, ToolContext, ToolEntry, RegisterOptions, DispatchOptions } from './registry/registry.js';
export { compileValidator, describeIssues } from './registry/validate.js';
export type { ArgumentIssue, ArgumentValidator } from './registry/validate.js';
export { renderTool, toolCost, toolsCost } from './registry/tool-cost.js';
export { approxTokenCounter, o200kTokenCounter } from './tokens/token-counter.js';
export type { TokenCounter } from './tokens/token-counter.js';

export type { SelectionContext, ToolSelector, AsyncToolSelector, AsyncSelectOptions, SelectorOutput, ToolReason } from './select/selector.js';
export { applySelection, withCore } from './select/apply-selection.js';
export type { Selection } from './select/apply-selection.js';
export { StaticSelector } from './select/static-selector.js';
export { KeywordSelector } from './select/keyword-selector.js';
export type { KeywordSelectorOptions } from './select/keyword-selector.js';
export { DEFAULT_SYNONYMS, DEFAULT_PHRASES, compileSynonyms, expandQuery } from './text/synonyms.js';
export type { SynonymPair, PhrasePair, SynonymTable } from './text/synonyms.js';
export { Bm25Selector } from './select/bm25-selector.js';
export type { Bm25SelectorOptions } from './select/bm25-selector.js';
export { STOPWORDS, splitName, textTokens, toolTokens, toolText } from './text/words.js';

export type { Embedder, EmbedOptions, EmbedProgress, LoadableEmbedder } from './embed/embedder.js';
export { dot, normalise } from './embed/embedder.js';
export type { VectorCache, MemoryVectorCacheOptions } from './embed/vector-cache.js';
export { memoryVectorCache } from './embed/vector-cache.js';

export { BareLoop, LoopRun } from './loop/bare-loop.js';
export type { BareLoopOptions, LoopConfig, RunOptions, RunResult } from './loop/bare-loop.js';
export type { ToolSearchOptions } from './loop/tool-search.js';
export type { LoopEvent, LoopEventType, StopReason } from './loop/events.js';
export { ToolConstraint, TOOL_CONSTRAINTS } from './loop/constraint.js';
export { BudgetGate } from './limits/budget.js';
export type { BudgetLimits, BudgetRefusal } from './limits/budget.js';
export { ContextAccount, messageCost } from './loop/estimate.js';
export type { ContextEstimate } from './loop/estimate.js';
export { toolResultCompactor } from './loop/managers.js';
export type { ContextManager, Compaction, CompactionRequest, ToolResultCompactorOptions } from './loop/managers.js';
export { raceAbort } from './limits/race-abort.js';

export type { ModelClient, ModelRequest, ModelResponse, ModelEvent, ModelUsage, ModelCallOptions, FinishReason, Provider, ToolChoice } from './model/client.js';
export { ModelError, ModelHttpError, ModelStreamError, ModelNetworkError, collectResponse } from './model/client.js';
export { openAIChatClient } from './model/openai-chat.js';
export type { OpenAIChatOptions } from './model/openai-chat.js';
export { anthropicMessagesClient } from './model/anthropic-messages.js';
export type { AnthropicMessagesOptions } from './model/anthropic-messages.js';
export { createToolNameMap, isValidWireName } from './model/tool-names.js';
export type { ToolNameMap } from './model/tool-names.js';
export type { RetryOptions } from './model/retry.js';

export { EmbeddingSelector } from './select/embedding-selector.js';
export type { EmbeddingSelectorOptions, EmbeddingAdaptiveOptions, ToolScores, QueryScores } from './select/embedding-selector.js';
export type { LearnExample, LearnedVoteOptions } from './select/example-memory.js';
export type { LearnOptions, LearnSummary } from './select/learned-store.js';
export { splitClauses } from './text/clauses.js';
export type { ClauseOptions } from './text/clauses.js';
export { adaptiveCut } from './select/adaptive-k.js';
export type { AdaptiveCutOptions } from './select/adaptive-k.js';
export { topK } from './select/top-k.js';
export { CorpusIndex, CorpusError } from './embed/corpus-index.js';
export type { CorpusStats, CorpusIndexOptions } from './embed/corpus-index.js';
export { HybridSelector, HYBRID_DEFAULTS } from './select/hybrid-selector.js';
export type { HybridSelectorOptions, HybridAdaptiveOptions, MultiIntentOptions } from './select/hybrid-selector.js';
export { stem } from './text/stem.js';
export { RewritingSelector, REWRITE_EXCERPT_BYTES, truncateUtf8, parseToolAnswer, buildRewritePrompt, toolSummary } from './select/rewriting-selector.js';
export type { RewritingSelectorOptions, ToolAnswer } from './select/rewriting-selector.js';
