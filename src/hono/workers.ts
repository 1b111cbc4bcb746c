/**
 * The Cloudflare Workers helper: a module worker around {@link createApp} that reads its
 * configuration from the bindings. Bindings it knows: KV namespace `VECTORS` (corpus vectors
 * of the embedding selector, shared by every isolate), optional Workers AI `AI` (enables
 * `embedding`/`hybrid` with `EMBEDDING_MODEL`), the `TOOL_SET_BUDGET` Durable Object, and the
 * text variables and secrets `settings.ts` declares (`LOOPCTL_TOKEN`, `MODEL_*`, `PROXY_*`…).
 * Without `LOOPCTL_TOKEN`, `/v1/*` answers 503.
 */
import type { Hono } from 'hono';
import type { KvNamespaceLike } from '../adapters/kv.js';
import { kvVectorCache, kvVectorsFile } from '../adapters/kv.js';
import type { WorkersAiLike } from '../adapters/workers-ai.js';
import { workersAIEmbedder } from '../adapters/workers-ai.js';
import type { VectorsSource } from '../embed/vectors-source.js';
import { mergeOptions } from '../options.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { EmbedderSource } from '../select/named-selectors.js';
import { ApiError, errorResponse } from './api-error.js';
import type { AppEnv, AppOptions } from './app.js';
import { createApp } from './app.js';
import { ConfigError } from './config-vars.js';
import type { LoopctlVars } from './env-options.js';
import { optionsFromVars } from './env-options.js';
import { durableGatewaySessions } from './mcp-sessions-object.js';
import { durableTrafficStore } from './proxy/learn/traffic-store-object.js';
import { learnBounds } from './proxy/proxy-settings.js';
import type { DurableNamespaceLike } from './proxy/tool-set-budget-object.js';
import { durableToolSetBudget } from './proxy/tool-set-budget-object.js';
import type { SettingVars } from './setting.js';
import { readSettings, settingDefaults } from './setting.js';
import { WORKER_SETTINGS } from './settings.js';

/** The static-assets binding, typed structurally. */
export interface AssetsLike {
  fetch(request: Request | string): Promise<Response>;
}

/**
 * The bindings this worker reads: the text variables `settings.ts` declares (the app's, the
 * proxy's, and `WORKER_SETTINGS`: `EMBEDDING_MODEL`, `VECTORS_TTL_SECONDS`), and these.
 */
export interface WorkerEnv extends LoopctlVars, SettingVars<typeof WORKER_SETTINGS> {
  /**
   * Corpus vectors, each entry living `VECTORS_TTL_SECONDS` (KV `expirationTtl`, renewed by each
   * rebuild): tool lists come from clients, so without an expiry every list ever sent would stay.
   */
  VECTORS?: KvNamespaceLike;
  AI?: WorkersAiLike;
  ASSETS?: AssetsLike;
  /**
   * The `ToolSetBudgetObject` Durable Object namespace: the proxy's budget of new tool lists,
   * shared by every isolate. Unbound, each isolate counts its own.
   */
  TOOL_SET_BUDGET?: DurableNamespaceLike;
  /**
   * The `LearnedTrafficObject` Durable Object namespace: with `PROXY_LEARN=on`, what the proxy
   * learns, one object per tenant, shared by every isolate. Unbound, each isolate learns alone.
   */
  LEARNED_TRAFFIC?: DurableNamespaceLike;
  /**
   * The `McpSessionsObject` Durable Object namespace: the MCP gateway's found tools per session
   * (`/mcp` with `"loopctl": { "exposeFound": true }`), read by every isolate. Unbound, the
   * gateway's list stays fixed.
   */
  MCP_SESSIONS?: DurableNamespaceLike;
}

/** The worker's own settings' defaults (`WORKER_SETTINGS`). */
const WORKER_DEFAULTS = settingDefaults(WORKER_SETTINGS);

/** Options for {@link createWorker}. */
export interface WorkerOptions<Env extends WorkerEnv = WorkerEnv> {
  /** The tools to serve, or a function of the bindings that builds them. */
  registry: ToolRegistry | ((env: Env) => ToolRegistry);
  /** Choose the embedder from the bindings. Default: Workers AI when `AI` is bound, else none. */
  embedder?: (env: Env) => EmbedderSource | undefined;
  /**
   * The precomputed vectors file seeding the embedding selector. Default: the file stored under
   * `loopctl:vectors-file` in the `VECTORS` namespace when bound (`loopctl vectors --kv-bulk`,
   * then `wrangler kv bulk put`); an unset key is simply no file.
   */
  vectors?: (env: Env) => VectorsSource | undefined;
  /** More app options (extra selectors, loop settings…), derived from the bindings. */
  app?: (env: Env) => Partial<AppOptions>;
}

/** A module worker. */
export interface ModuleWorker<Env> {
  fetch(request: Request, env: Env, ctx?: unknown): Promise<Response>;
}

/**
 * Build a module worker. The app is built once per bindings object (once per isolate), so
 * warm requests reuse the selectors and the corpus held in memory; a fresh isolate reads
 * corpus vectors back from KV instead of re-embedding.
 *
 * @example
 * import { ToolRegistry } from 'loopctl'
 * import { createWorker } from 'loopctl/hono'
 * const registry = new ToolRegistry().register(weatherSchema, getWeather)
 * export default createWorker({ registry })
 */
export function createWorker<Env extends WorkerEnv = WorkerEnv>(options: WorkerOptions<Env>): ModuleWorker<Env> {
  const apps = new WeakMap<object, Hono<AppEnv>>();
  const pickEmbedder = options.embedder ?? defaultEmbedder;
  const pickVectors = options.vectors ?? ((env: Env) => (env.VECTORS ? kvVectorsFile(env.VECTORS) : undefined));
  return {
    async fetch(request, env, ctx) {
      let app = apps.get(env);
      if (!app) {
        try {
          const embedder = pickEmbedder(env);
          const vectors = pickVectors(env);
          const registry = typeof options.registry === 'function' ? options.registry(env) : options.registry;
          const { vectorsTtlSeconds: ttl } = mergeOptions(WORKER_DEFAULTS, readSettings(WORKER_SETTINGS, env));
          const cache = env.VECTORS
            ? kvVectorCache(env.VECTORS, ttl !== undefined && ttl > 0 ? { expirationTtl: ttl } : {})
            : undefined;
          const vars = optionsFromVars(env);
          const budget = env.TOOL_SET_BUDGET
            ? {
                ...vars.proxy,
                toolSetBudget: durableToolSetBudget(env.TOOL_SET_BUDGET, {
                  perClient: vars.proxy?.newToolSetsPerClient,
                  total: vars.proxy?.newToolSetsTotal,
                }),
              }
            : vars.proxy;
          // PROXY_LEARN=on: one Durable Object per tenant, shared by the fleet, when bound.
          const proxy =
            env.LEARNED_TRAFFIC && budget?.learn === 'on'
              ? { ...budget, learn: durableTrafficStore(env.LEARNED_TRAFFIC, learnBounds(budget)) }
              : budget;
          // /mcp: remote servers only (no processes here), connected per request (a connection
          // cannot outlive its request here); `${VAR}` read from the bindings' text.
          const mcpGateway = {
            remoteOnly: true,
            perRequest: true,
            vars: env as unknown as Readonly<Record<string, unknown>>,
            ...(env.MCP_SESSIONS ? { sessions: durableGatewaySessions(env.MCP_SESSIONS) } : {}),
          };
          app = createApp(
            mergeOptions({ ...vars, proxy, registry, embedder, vectors, cache, mcpGateway }, options.app?.(env)),
          );
        } catch (error) {
          if (error instanceof ConfigError || error instanceof RangeError)
            return errorResponse(new ApiError(503, 'not_configured', error.message));
          throw error;
        }
        apps.set(env, app);
      }
      // The execution context gives the proxy `waitUntil`: learning stored after the answer.
      return app.fetch(request, env, ctx as Parameters<Hono<AppEnv>['fetch']>[2]);
    },
  };
}

function defaultEmbedder(env: WorkerEnv): EmbedderSource | undefined {
  return env.AI ? workersAIEmbedder(env.AI, readSettings(WORKER_SETTINGS, env).embeddingModel) : undefined;
}
