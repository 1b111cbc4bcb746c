/**
 * The tool-selecting proxy: OpenAI- and Anthropic-compatible endpoints that narrow each
 * request's tools before forwarding it, one `ProxyProtocol` object per wire protocol. See
 * docs/proxy.md.
 *
 * @example
 * import { proxyRoutes } from './src/hono/proxy/index.js'
 * app.route('/', proxyRoutes({ selectors, token: tokenVerifier(env.LOOPCTL_TOKEN), model: { baseURL, apiKey } }))
 */

export type { UploadBudget } from '../upload-budget.js';
export { uploadBudget } from '../upload-budget.js';
export type { LearnBounds, StoredExample } from './learn/tenant-state.js';
export type { TrafficExample } from './learn/traffic-examples.js';
export type { LearnedTrafficStore, TrafficSnapshot } from './learn/traffic-store.js';
export { memoryTrafficStore } from './learn/traffic-store.js';
export { durableTrafficStore, LearnedTrafficObject } from './learn/traffic-store-object.js';
export { anthropicMessages, openAIChat, openAIResponses, PROTOCOLS } from './protocols/index.js';
export type { ProxyAuthMode, TokenVerifier } from './proxy-auth.js';
export { tokenVerifier } from './proxy-auth.js';
export type { ProxyVars } from './proxy-env.js';
export { proxySettingsFromVars } from './proxy-env.js';
export type { ProxyProtocol, ProxyRequest, ProxyUpstream, WireDialect } from './proxy-protocol.js';
export type { ProxyRoutesOptions, ProxySelectorTable, ProxySettings } from './proxy-routes.js';
export { proxyRoutes } from './proxy-routes.js';
export type { ToolSetBudget, ToolSetBudgetOptions } from './tool-set-budget.js';
export { toolSetBudget } from './tool-set-budget.js';
export type { DurableNamespaceLike, DurableStorageLike } from './tool-set-budget-object.js';
export { durableToolSetBudget, ToolSetBudgetObject } from './tool-set-budget-object.js';
export { UpstreamUnreachableError } from './upstream-unreachable.js';
