// The CLI's entry: the command, plus the pieces scripts/eval.mjs and scripts/bench.mjs reuse.

export type { EvalCase, SplitName } from './eval-data.js';
export { loadCases, loadTools } from './eval-data.js';
export type { EvalFellOpen, EvalMiss, EvalReport, EvaluateOptions, ExpectedGroup, GroupRecall } from './evaluate.js';
export { EXPECTED_GROUPS, evaluate, expectedGroup, percentile, selectFor } from './evaluate.js';
export type { ReachableReport, SearchMethod } from './evaluate-reachable.js';
export { evaluateReachable, searchMethods } from './evaluate-reachable.js';
export { main, UsageError } from './main.js';
export { aiSdkKeywordSearch, regexPatternFor, regexReferenceSearch } from './search-baselines.js';
export { defaultEmbedder, isDense, makeSelector, memoEmbedder, SELECTOR_FACTORIES, usesK } from './selectors.js';
export { splitKey, splitOf } from './split.js';
