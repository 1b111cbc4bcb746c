/**
 * The selectors the API offers by name, each built for a requested `k` and memoised, so a
 * busy worker reuses compiled synonym tables and the embedding selector's warm corpus.
 */
import type { Embedder } from '../src/embed/embedder.js';
import type { VectorCache } from '../src/embed/vector-cache.js';
import type { VectorsSource } from '../src/embed/vectors-source.js';
import { Bm25Selector } from '../src/select/bm25-selector.js';
import { EmbeddingSelector } from '../src/select/embedding-selector.js';
import { HybridSelector } from '../src/select/hybrid-selector.js';
import { KeywordSelector } from '../src/select/keyword-selector.js';
import type { AsyncToolSelector, ToolSelector } from '../src/select/selector.js';
import { StaticSelector } from '../src/select/static-selector.js';
import { ApiError } from './api-error.js';

/** A selector ready to install on a loop: sync or async. */
export type InstallableSelector = { kind: 'sync'; selector: ToolSelector } | { kind: 'async'; selector: AsyncToolSelector };

/** Builds a named selector for a requested `k` (undefined: the selector's default). */
export type SelectorFactory = (k: number | undefined) => InstallableSelector | Promise<InstallableSelector>;

/** Where the embedding selector gets its model: an embedder, or a (lazy, async) factory. */
export type EmbedderSource = Embedder | (() => Embedder | Promise<Embedder>);

/** Options for {@link selectorTable}. */
export interface SelectorTableOptions {
  /** Enables `embedding`; without it that selector answers 503. */
  embedder?: EmbedderSource;
  /** Where corpus vectors persist (Workers KV, IndexedDB…). Default in memory. */
  vectorCache?: VectorCache;
  /** A precomputed vectors file seeding the embedding selector's corpus (`loopctl vectors`). */
  vectors?: VectorsSource;
  /** Default k for ranked selectors. Default 8. */
  defaultK?: number;
  /** Extra or replacement selectors (e.g. `hybrid`). */
  extra?: Readonly<Record<string, SelectorFactory>>;
  /** Called when the embedder fails to load (the response stays generic). */
  onError?: (error: unknown) => void;
}

/** The named selectors and a way to build one. */
export interface SelectorTable {
  readonly names: readonly string[];
  get(name: string, k: number | undefined): Promise<InstallableSelector>;
}

/**
 * The default table: `keyword`, `keyword-ranked`, `bm25`, `static`, `embedding`, `hybrid`.
 *
 * @example
 * const table = selectorTable({ embedder: () => loadEmbedder() })
 * const { selector } = await table.get('bm25', 5)
 */
export function selectorTable(options: SelectorTableOptions = {}): SelectorTable {
  const { defaultK, embedder, vectorCache, vectors, extra, onError } = { defaultK: 8, ...options };
  let base: Promise<EmbeddingSelector> | undefined;
  const embedding = (): Promise<EmbeddingSelector> => {
    if (!embedder) {
      return Promise.reject(
        new ApiError(503, 'selector_unavailable', 'the embedding and hybrid selectors are not configured on this server (no embedder); use keyword, keyword-ranked, bm25 or static'),
      );
    }
    base ??= (async () => {
      const model = typeof embedder === 'function' ? await embedder() : embedder;
      return new EmbeddingSelector(model, {
        topK: defaultK,
        ...(vectorCache ? { cache: vectorCache } : {}),
        ...(vectors !== undefined ? { vectors } : {}),
      });
    })().catch((error: unknown) => {
      base = undefined; // Let a later request retry the load.
      onError?.(error);
      throw new ApiError(503, 'selector_unavailable', 'the embedding model failed to load on this server; see the server log');
    });
    return base;
  };

  const factories: Record<string, SelectorFactory> = {
    keyword: () => ({ kind: 'sync', selector: new KeywordSelector() }),
    'keyword-ranked': (k) => ({ kind: 'sync', selector: new KeywordSelector({ maxTools: k ?? defaultK }) }),
    bm25: (k) => ({ kind: 'sync', selector: new Bm25Selector({ topK: k ?? defaultK }) }),
    static: () => ({ kind: 'sync', selector: new StaticSelector() }),
    // Derived selectors share the base's corpus index, so every k reuses one warm corpus.
    embedding: async (k) => ({ kind: 'async', selector: (await embedding()).withTopK(k ?? defaultK) }),
    // BM25 blended with the same embedding selector (and so the same warm corpus).
    hybrid: async (k) => ({ kind: 'async', selector: new HybridSelector(await embedding(), { topK: k ?? defaultK }) }),
    ...extra,
  };
  const memo = new Map<string, Promise<InstallableSelector>>();
  return {
    names: Object.keys(factories),
    get(name, k) {
      const factory = factories[name];
      if (!factory) return Promise.reject(new ApiError(400, 'invalid_field', `unknown selector "${name}"`, 'selector'));
      const key = `${name}:${k ?? ''}`;
      let selector = memo.get(key);
      if (!selector) {
        selector = Promise.resolve(factory(k));
        memo.set(key, selector);
        selector.catch(() => memo.delete(key));
      }
      return selector;
    },
  };
}
