/**
 * The Cloudflare Workers helper: a module worker around {@link createApp} that reads its
 * configuration from the bindings. Bindings it knows: KV namespace `VECTORS` (corpus vectors
 * of the embedding selector, shared by every isolate), optional Workers AI `AI` (enables
 * `embedding`/`hybrid` with `EMBEDDING_MODEL`, default `@cf/baai/bge-small-en-v1.5`), vars
 * `MODEL_PROVIDER`, `MODEL_BASE_URL`, `MODEL_NAME`, `CORS_ORIGINS`, `PROXY_*`, and secrets
 * `MODEL_API_KEY`, `PROXY_OPENAI_API_KEY`, `PROXY_ANTHROPIC_API_KEY`, `LOOPCTL_TOKEN`. Without
 * `LOOPCTL_TOKEN`, `/v1/*` answers 503.
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
import type { DurableNamespaceLike } from './proxy/tool-set-budget-object.js';
import { durableToolSetBudget } from './proxy/tool-set-budget-object.js';

/** The static-assets binding, typed structurally. */
export interface AssetsLike {
  fetch(request: Request | string): Promise<Response>;
}

/** The bindings this worker reads. */
export interface WorkerEnv extends LoopctlVars {
  VECTORS?: KvNamespaceLike;
  AI?: WorkersAiLike;
  ASSETS?: AssetsLike;
  /** Workers AI embedding model. Default `@cf/baai/bge-small-en-v1.5`. */
  EMBEDDING_MODEL?: string;
  /**
   * Seconds a corpus entry written to `VECTORS` lives (KV `expirationTtl`, renewed by each
   * rebuild). Default 604800 (7 days); `0` keeps entries for good. Tool lists come from
   * clients, so without an expiry every list ever sent would stay in the namespace.
   */
  VECTORS_TTL_SECONDS?: string;
  /**
   * The `ToolSetBudgetObject` Durable Object namespace: the proxy's budget of new tool lists,
   * shared by every isolate. Unbound, each isolate counts its own.
   */
  TOOL_SET_BUDGET?: DurableNamespaceLike;
}

/** What `VECTORS_TTL_SECONDS` defaults to: a week. */
export const DEFAULT_VECTORS_TTL_SECONDS = 604_800;

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
    async fetch(request, env) {
      let app = apps.get(env);
      if (!app) {
        try {
          const embedder = pickEmbedder(env);
          const vectors = pickVectors(env);
          const registry = typeof options.registry === 'function' ? options.registry(env) : options.registry;
          const ttl = vectorsTtl(env.VECTORS_TTL_SECONDS);
          const cache = env.VECTORS ? kvVectorCache(env.VECTORS, ttl > 0 ? { expirationTtl: ttl } : {}) : undefined;
          const vars = optionsFromVars(env);
          const proxy = env.TOOL_SET_BUDGET
            ? {
                ...vars.proxy,
                toolSetBudget: durableToolSetBudget(env.TOOL_SET_BUDGET, {
                  perClient: vars.proxy?.newToolSetsPerClient,
                  total: vars.proxy?.newToolSetsTotal,
                }),
              }
            : vars.proxy;
          app = createApp(mergeOptions({ ...vars, proxy, registry, embedder, vectors, cache }, options.app?.(env)));
        } catch (error) {
          if (error instanceof ConfigError || error instanceof RangeError)
            return errorResponse(new ApiError(503, 'not_configured', error.message));
          throw error;
        }
        apps.set(env, app);
      }
      return app.fetch(request, env);
    },
  };
}

// KV refuses an expirationTtl under 60 seconds.
function vectorsTtl(text: string | undefined): number {
  const value = text?.trim();
  if (value === undefined || value === '') return DEFAULT_VECTORS_TTL_SECONDS;
  if (!/^\d{1,10}$/.test(value) || (Number(value) > 0 && Number(value) < 60))
    throw new ConfigError('VECTORS_TTL_SECONDS must be 0 (never expire) or a whole number of seconds of at least 60');
  return Number(value);
}

function defaultEmbedder(env: WorkerEnv): EmbedderSource | undefined {
  return env.AI ? workersAIEmbedder(env.AI, env.EMBEDDING_MODEL || undefined) : undefined;
}
