/**
 * The Cloudflare Workers entry. Bindings (see wrangler.toml): KV namespace `VECTORS` (corpus
 * vectors for the embedding selector, shared by every isolate), optional Workers AI `AI`
 * (enables `embedding` with `EMBEDDING_MODEL`, default `@cf/baai/bge-small-en-v1.5`), vars
 * `MODEL_PROVIDER`, `MODEL_BASE_URL`, `MODEL_NAME`, `CORS_ORIGINS`, and secrets
 * `MODEL_API_KEY`, `LOOPCTL_TOKEN`. Static files (the demo) are served by `[assets]` before
 * the worker runs. Without `LOOPCTL_TOKEN`, `/v1/*` answers 503.
 */
import type { Hono } from 'hono';
import type { KvNamespaceLike } from '../src/adapters/kv.js';
import { kvVectorCache, kvVectorsFile } from '../src/adapters/kv.js';
import type { VectorsSource } from '../src/embed/vectors-source.js';
import type { WorkersAiLike } from '../src/adapters/workers-ai.js';
import { workersAIEmbedder } from '../src/adapters/workers-ai.js';
import type { AppOptions } from './app.js';
import { createApp } from './app.js';
import { ApiError, errorResponse } from './api-error.js';
import type { LoopctlVars } from './env-options.js';
import { ConfigError, optionsFromVars } from './env-options.js';
import type { EmbedderSource } from './selector-table.js';

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
}

/** Options for {@link createWorker}. */
export interface WorkerOptions<Env extends WorkerEnv = WorkerEnv> {
  /** Choose the embedder from the bindings. Default: Workers AI when `AI` is bound, else none. */
  embedder?: (env: Env) => EmbedderSource | undefined;
  /**
   * The precomputed vectors file seeding the embedding selector. Default: the file stored under
   * `loopctl:vectors-file` in the `VECTORS` namespace when bound (`loopctl vectors --kv-bulk`,
   * then `wrangler kv bulk put`); an unset key is simply no file.
   */
  vectors?: (env: Env) => VectorsSource | undefined;
  /** More app options (a registry, extra selectors…), derived from the bindings. */
  app?: (env: Env) => AppOptions;
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
 * export default createWorker({ embedder: (env) => workersAIEmbedder(env.AI!, '@cf/baai/bge-base-en-v1.5') })
 */
export function createWorker<Env extends WorkerEnv = WorkerEnv>(options: WorkerOptions<Env> = {}): ModuleWorker<Env> {
  const apps = new WeakMap<object, Hono>();
  const pickEmbedder = options.embedder ?? defaultEmbedder;
  const pickVectors = options.vectors ?? ((env: Env) => (env.VECTORS ? kvVectorsFile(env.VECTORS) : undefined));
  return {
    async fetch(request, env) {
      let app = apps.get(env);
      if (!app) {
        try {
          const embedder = pickEmbedder(env);
          const vectors = pickVectors(env);
          app = createApp({
            ...optionsFromVars(env),
            ...(embedder ? { embedder } : {}),
            ...(vectors !== undefined ? { vectors } : {}),
            ...(env.VECTORS ? { vectorCache: kvVectorCache(env.VECTORS) } : {}),
            ...options.app?.(env),
          });
        } catch (error) {
          if (error instanceof ConfigError) return errorResponse(new ApiError(503, 'not_configured', error.message));
          throw error;
        }
        apps.set(env, app);
      }
      return app.fetch(request, env);
    },
  };
}

function defaultEmbedder(env: WorkerEnv): EmbedderSource | undefined {
  return env.AI ? workersAIEmbedder(env.AI, env.EMBEDDING_MODEL || undefined) : undefined;
}

export default createWorker();
