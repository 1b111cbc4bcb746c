/**
 * An {@link Embedder} over the Workers AI binding (`env.AI`): the light way to run the
 * embedding selector in Cloudflare Workers, with no ONNX runtime in the script.
 *
 * @module loopctl/workers-ai
 */
import type { Embedder, EmbedOptions } from '../embed/embedder.js';
import { mergeOptions } from '../options.js';

/**
 * The part of the Workers `Ai` binding this adapter uses. Structural, so no
 * `@cloudflare/workers-types` import: a real binding satisfies it, and so does a test double.
 */
export interface WorkersAiLike {
  run(model: string, inputs: { text: string[] }, options?: Record<string, unknown>): Promise<unknown>;
}

/** Options for {@link workersAIEmbedder}. */
export interface WorkersAiEmbedderOptions {
  /** Vector width; needed only for models this adapter does not know. */
  dimensions?: number;
  /** Texts per `run` call. Default 100 (the BGE models' limit). */
  batchSize?: number;
}

/** Output widths of the Workers AI text-embedding models, for the embedder's `dimensions`. */
export const WORKERS_AI_EMBEDDING_DIMENSIONS: Readonly<Record<string, number>> = Object.freeze({
  '@cf/baai/bge-small-en-v1.5': 384,
  '@cf/baai/bge-base-en-v1.5': 768,
  '@cf/baai/bge-large-en-v1.5': 1024,
  '@cf/baai/bge-m3': 1024,
  '@cf/google/embeddinggemma-300m': 768,
  '@cf/qwen/qwen3-embedding-0.6b': 1024,
});

/**
 * The embedding model {@link workersAIEmbedder} asks for when told none (the Workers entry's
 * `EMBEDDING_MODEL` default).
 *
 * @example
 * workersAIEmbedder(env.AI, DEFAULT_WORKERS_AI_MODEL)
 */
export const DEFAULT_WORKERS_AI_MODEL = '@cf/baai/bge-small-en-v1.5';

/**
 * Embed with a Workers AI model. The binding's answer (`{ shape, data }`) is checked: a
 * missing, short or ragged answer rejects, so the embedding selector falls open instead of
 * ranking with garbage.
 *
 * @example
 * export default {
 *   async fetch(request: Request, env: { AI: WorkersAiLike; VECTORS: KVNamespace }) {
 *     const embedder = workersAIEmbedder(env.AI, '@cf/baai/bge-small-en-v1.5')
 *     const selector = new EmbeddingSelector(embedder, { cache: kvVectorCache(env.VECTORS) })
 *     // ...
 *   },
 * }
 */
export function workersAIEmbedder(
  ai: WorkersAiLike,
  model: string = DEFAULT_WORKERS_AI_MODEL,
  options: WorkersAiEmbedderOptions = {},
): Embedder {
  const { dimensions, batchSize } = mergeOptions(
    { dimensions: WORKERS_AI_EMBEDDING_DIMENSIONS[model], batchSize: 100 },
    options,
  );
  if (dimensions === undefined || !Number.isInteger(dimensions) || dimensions < 1) {
    throw new RangeError(`workersAIEmbedder: unknown model ${model}; pass { dimensions }`);
  }
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);

  return {
    id: `workers-ai/${model}`,
    dimensions,
    async embed(texts: readonly string[], embedOptions: EmbedOptions = {}): Promise<Float32Array[]> {
      const { signal } = embedOptions;
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        signal?.throwIfAborted();
        const batch = texts.slice(start, start + batchSize);
        const answer = await ai.run(model, { text: batch });
        signal?.throwIfAborted();
        const rows = (answer as { data?: unknown } | null)?.data;
        if (!Array.isArray(rows) || rows.length !== batch.length) {
          throw new Error(
            `workers-ai ${model}: expected ${batch.length} vectors, got ${Array.isArray(rows) ? rows.length : 'none'}`,
          );
        }
        for (const row of rows) {
          if (!Array.isArray(row) || row.length !== dimensions) {
            throw new Error(`workers-ai ${model}: expected ${dimensions}-dimensional vectors`);
          }
          out.push(Float32Array.from(row as number[]));
        }
      }
      return out;
    },
  };
}
