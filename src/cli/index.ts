// The CLI's entry: the command, plus the pieces scripts/eval.mjs and scripts/bench.mjs reuse.
export { main, UsageError } from './main.js';
export { evaluate, percentile, selectFor } from './evaluate.js';
export type { EvalReport, EvalMiss, EvaluateOptions } from './evaluate.js';
export { loadCases, loadTools } from './eval-data.js';
export type { EvalCase, SplitName } from './eval-data.js';
export { splitKey, splitOf } from './split.js';
export { defaultEmbedder, isDense, makeSelector, memoEmbedder, SELECTOR_FACTORIES, usesK } from './selectors.js';
