/**
 * `loopctl/hono`: the loopctl HTTP API as a Hono app you serve with your own tools, plus
 * helpers for Cloudflare Workers (with KV) and Deno. Node's helper is `loopctl/hono/node`.
 * Needs `hono` (an optional peer dependency of loopctl).
 */

export type { ErrorBody, ErrorStatus } from './api-error.js';
export { ApiError, errorResponse } from './api-error.js';
export type { ApiSelectors, ApiSelectorsOptions } from './api-selectors.js';
export { apiSelectors, EmbedderUnavailableError, yieldingEmbedder } from './api-selectors.js';
export type { AppEnv, AppOptions, ModelOptions } from './app.js';
export { createApp } from './app.js';
export { ConfigError } from './config-vars.js';
export type { DenoAppOptions } from './deno.js';
export { denoHandler, serveDeno } from './deno.js';
export { generateToken } from './dev-token.js';
export type { LoopctlVars, VarOptions } from './env-options.js';
export { optionsFromVars } from './env-options.js';
export { LIMITS } from './limits.js';
export type { McpRouteOptions } from './mcp-route.js';
export { MCP_PATH } from './mcp-route.js';
export type { SessionStorageLike } from './mcp-sessions-object.js';
export { durableGatewaySessions, McpSessionsObject } from './mcp-sessions-object.js';
export type {
  DurableNamespaceLike,
  LearnedTrafficStore,
  ToolSetBudget,
  ToolSetBudgetOptions,
  TrafficSnapshot,
} from './proxy/index.js';
export {
  durableToolSetBudget,
  durableTrafficStore,
  LearnedTrafficObject,
  memoryTrafficStore,
  ToolSetBudgetObject,
  toolSetBudget,
  UpstreamUnreachableError,
} from './proxy/index.js';
export type { Setting, SettingKind, SettingTable, SettingValues, SettingVars } from './setting.js';
export { readSettings } from './setting.js';
export {
  APP_SETTINGS,
  ENTRY_SETTINGS,
  MODEL_DEFAULTS,
  MODEL_SETTINGS,
  PROXY_SETTINGS,
  WORKER_SETTINGS,
} from './settings.js';
export type { AssetsLike, ModuleWorker, WorkerEnv, WorkerOptions } from './workers.js';
export { createWorker } from './workers.js';
