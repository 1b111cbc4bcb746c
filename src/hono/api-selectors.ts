/**
 * The API's selectors: the project's one named-selector table (`namedSelectors`), with the
 * embedder made to yield to the event loop, and the table's typed errors as API errors.
 */
import type { Embedder } from '../embed/embedder.js';
import type { VectorCache } from '../embed/vector-cache.js';
import type { VectorsSource } from '../embed/vectors-source.js';
import type { EmbedderSource, NamedSelectorFactory, NamedSelectors } from '../select/named-selectors.js';
import { namedSelectors, SelectorUnavailableError, UnknownSelectorError } from '../select/named-selectors.js';
import type { AsyncToolSelector } from '../select/selector.js';
import { ApiError } from './api-error.js';

/** Options for {@link apiSelectors}. */
export interface ApiSelectorsOptions {
  /** Enables the dense selectors (`embedding*`, `hybrid*`); without it they answer 503. */
  embedder?: EmbedderSource;
  /** Where corpus vectors persist (Workers KV, IndexedDB…). Default in memory. */
  cache?: VectorCache;
  /** A precomputed vectors file seeding the embedding selector's corpus (`loopctl vectors`). */
  vectors?: VectorsSource;
  /** Most corpus texts one selection embeds (see `EmbeddingSelectorOptions.maxNewTexts`). Default: no limit. */
  maxNewTexts?: number;
  /** Extra or replacement selectors by name. */
  extra?: Readonly<Record<string, NamedSelectorFactory>>;
  /**
   * Told when the embedder fails to load, once per distinct failure (a failed load is retried on
   * the next request; the log need not repeat it). The response stays generic.
   */
  onError?: (error: unknown) => void;
}

/**
 * Thrown by an embedder source (`useLiteFromDisk`'s loader, or your own) that cannot load, with a
 * message meant for the operator: the server log gets it (say what is missing and how to fix it,
 * e.g. the model folder to build). Clients get only "the embedding model is unavailable": a
 * folder path or an errno text is the server's business.
 *
 * @example
 * const embedder = async () => {
 *   if (!existsSync(dir)) throw new EmbedderUnavailableError(`no model in ${dir}: run npx loopctl model --out ${dir}`)
 *   return useLiteEmbedder({ modelPath: dir })
 * }
 */
export class EmbedderUnavailableError extends Error {
  override readonly name = 'EmbedderUnavailableError';
}

/** The named selectors, with a `get` that rejects with {@link ApiError}s. */
export interface ApiSelectors {
  readonly names: readonly string[];
  get(name: string, k: number | undefined): Promise<AsyncToolSelector>;
  /** Whether `name` needs an embedder. */
  isDense(name: string): boolean;
  /** Whether `name`'s output size follows k (plain `keyword`, `static` and the adaptive ones decide it themselves). */
  usesK(name: string): boolean;
}

/**
 * The selectors the API offers by name: `namedSelectors`' table (`static`, `keyword`,
 * `keyword-ranked`, `bm25`, `embedding`, `embedding-adaptive`, `hybrid`, `hybrid-adaptive` and
 * any `extra`), each built once per k so a busy server reuses one warm corpus.
 *
 * @example
 * const selectors = apiSelectors({ embedder: () => loadEmbedder(), cache: kvVectorCache(env.VECTORS) })
 * const selector = await selectors.get('hybrid', 5)
 */
export function apiSelectors(options: ApiSelectorsOptions = {}): ApiSelectors {
  const { embedder } = options;
  const logged = new Set<string>();
  const table: NamedSelectors = namedSelectors({
    embedder: embedder
      ? async () => yieldingEmbedder(typeof embedder === 'function' ? await embedder() : embedder)
      : undefined,
    cache: options.cache,
    embeddingOptions: { vectors: options.vectors, maxNewTexts: options.maxNewTexts },
    extra: options.extra,
    onError: (error) => {
      // Every request retries a failed load; the same failure is logged once.
      const key = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      if (logged.has(key)) return;
      logged.add(key);
      options.onError?.(error);
    },
  });
  return {
    names: table.names,
    isDense: (name) => table.isDense(name),
    usesK: (name) => table.usesK(name),
    async get(name, k) {
      try {
        return await table.get(name, k);
      } catch (error) {
        if (error instanceof UnknownSelectorError)
          throw new ApiError(400, 'invalid_field', `unknown selector "${name.slice(0, 40)}"`, 'selector');
        if (error instanceof SelectorUnavailableError) {
          throw new ApiError(
            503,
            'selector_unavailable',
            embedder
              ? 'the embedding model is unavailable on this server (see the server log); keyword, keyword-ranked, bm25 and static still answer'
              : 'the embedding and hybrid selectors are not configured on this server (no embedder); use keyword, keyword-ranked, bm25 or static',
          );
        }
        throw error;
      }
    },
  };
}

/**
 * The embedder, yielding to the event loop (a macrotask) before each call. A cold model load and
 * corpus embedding are seconds of synchronous WASM chained by promises alone; without a yield the
 * server never gets to accept the requests that arrive meanwhile. In workerd those wait outside
 * the isolate and were dropped when the work ended (no log line: a socket closed without an
 * answer); with the yield they come in, join the one load, and all answer.
 *
 * @example
 * namedSelectors({ embedder: () => yieldingEmbedder(useLiteEmbedder({ modelPath })) })
 */
export function yieldingEmbedder(embedder: Embedder): Embedder {
  return {
    get id() {
      return embedder.id;
    },
    get dimensions() {
      return embedder.dimensions;
    },
    async embed(texts, options) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      return embedder.embed(texts, options);
    },
    ...(embedder.vocabularyCoverage
      ? { vocabularyCoverage: (text: string) => embedder.vocabularyCoverage?.(text) }
      : {}),
  };
}
