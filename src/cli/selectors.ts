import type { Embedder } from '../embed/embedder.js';
import { Bm25Selector } from '../select/bm25-selector.js';
import { fileVectorCache } from '../adapters/file-cache.js';
import type { VectorCache } from '../embed/vector-cache.js';
import { memoryVectorCache } from '../embed/vector-cache.js';
import type { VectorsSource } from '../embed/vectors-source.js';
import { EmbeddingSelector } from '../select/embedding-selector.js';
import { HybridSelector } from '../select/hybrid-selector.js';
import { KeywordSelector } from '../select/keyword-selector.js';
import { StaticSelector } from '../select/static-selector.js';
import type { AnySelector } from './evaluate.js';

/** What a CLI selector factory is given. */
export interface SelectorSpec {
  /** The ranked selectors' k (keyword-ranked: maxTools; adaptive ones: the ceiling is their own). */
  k: number;
  /** The embedder for dense selectors; loaded on first use when absent. */
  embedder?: () => Promise<Embedder>;
  /** A precomputed vectors file seeding the dense selectors' corpus. */
  vectors?: VectorsSource;
  /** Keep corpus vectors in memory only (no file cache between runs). */
  noCache?: boolean;
}

type Factory = (spec: SelectorSpec) => AnySelector | Promise<AnySelector>;

async function needEmbedder(spec: SelectorSpec): Promise<Embedder> {
  return spec.embedder ? spec.embedder() : defaultEmbedder();
}

let cached: Promise<Embedder> | undefined;
let sharedCache: VectorCache | undefined;

// Corpus vectors persist between CLI runs, so only the first run over a registry embeds it.
function corpusCache(spec: SelectorSpec): VectorCache {
  if (spec.noCache) return memoryVectorCache();
  sharedCache ??= fileVectorCache({ directory: 'node_modules/.cache/loopctl/vectors' });
  return sharedCache;
}

/** The cache and vectors-file options every dense factory passes on. */
function dense(spec: SelectorSpec): { cache: VectorCache; vectors?: VectorsSource } {
  return { cache: corpusCache(spec), ...(spec.vectors !== undefined ? { vectors: spec.vectors } : {}) };
}

/**
 * The offline default model, from the package's `models/use-lite` (built by `npm run build:model`).
 * `numThreads` applies to the first load in a process (onnxruntime-web fixes it then).
 */
export function defaultEmbedder(modelPath?: string, numThreads?: number): Promise<Embedder> {
  if (!cached || modelPath || numThreads !== undefined) {
    // A variable, not a literal: bundlers would otherwise try to inline the folder as an asset.
    const relative = '../models/use-lite/';
    const path = modelPath ?? decodeURIComponent(new URL(relative, import.meta.url).pathname);
    cached = import('../adapters/use-lite.js').then(({ useLiteEmbedder }) =>
      useLiteEmbedder({ modelPath: path, ...(numThreads !== undefined ? { numThreads } : {}) }),
    );
  }
  return cached;
}

/**
 * The selectors the CLI knows, by name. `k` applies to the ranked ones; the plain keyword
 * rule, static and the adaptive variants ignore it.
 */
export const SELECTOR_FACTORIES: Readonly<Record<string, Factory>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, Factory>, {
    static: () => new StaticSelector(),
    keyword: () => new KeywordSelector(),
    'keyword-ranked': ({ k }: SelectorSpec) => new KeywordSelector().withMaxTools(k),
    bm25: ({ k }: SelectorSpec) => new Bm25Selector({ topK: k }),
    embedding: async (spec: SelectorSpec) => new EmbeddingSelector(await needEmbedder(spec), { topK: spec.k, ...dense(spec) }),
    'embedding-adaptive': async (spec: SelectorSpec) =>
      new EmbeddingSelector(await needEmbedder(spec), {
        topK: 16,
        adaptive: { floor: 3, ceiling: 16, span: 0.7 },
        ...dense(spec),
      }),
    hybrid: async (spec: SelectorSpec) => new HybridSelector(await needEmbedder(spec), { topK: spec.k, ...dense(spec) }),
    'hybrid-adaptive': async (spec: SelectorSpec) => new HybridSelector(await needEmbedder(spec), { adaptive: true, ...dense(spec) }),
  }),
);

/** Whether a selector's output size depends on k. */
export function usesK(name: string): boolean {
  return !['static', 'keyword', 'embedding-adaptive', 'hybrid-adaptive'].includes(name);
}

/** Whether a selector embeds (needs the model; its timings include a query embedding). */
export function isDense(name: string): boolean {
  return name.startsWith('embedding') || name.startsWith('hybrid');
}

/**
 * Tool texts the selector's corpus index has embedded so far (0 for selectors that do not embed).
 *
 * @example
 * const before = corpusEmbeds(selector); await runSelector(selector, prompt, tools, signal)
 * const embeddedNow = corpusEmbeds(selector) - before
 */
export function corpusEmbeds(selector: AnySelector): number {
  if (selector instanceof EmbeddingSelector) return selector.stats.corpusEmbeds;
  if (selector instanceof HybridSelector) return selector.dense.stats.corpusEmbeds;
  return 0;
}

/** Build a selector by name, or throw listing the known names. */
export async function makeSelector(name: string, spec: SelectorSpec): Promise<AnySelector> {
  const factory = Object.hasOwn(SELECTOR_FACTORIES, name) ? SELECTOR_FACTORIES[name] : undefined;
  if (!factory) {
    throw new Error(`unknown selector "${name}" (known: ${Object.keys(SELECTOR_FACTORIES).join(', ')})`);
  }
  return factory(spec);
}

/**
 * An embedder that remembers what it embedded, so an eval can score many selector
 * configurations on the same queries while embedding each text once. `bypass` turns the
 * memory off (for timing passes that must pay for the embedding).
 */
export function memoEmbedder(base: Embedder): Embedder & { bypass: boolean } {
  const memory = new Map<string, Float32Array>();
  const memo = {
    id: base.id,
    dimensions: base.dimensions,
    bypass: false,
    async embed(texts: readonly string[], options?: { signal?: AbortSignal }) {
      if (memo.bypass) return base.embed(texts, options);
      const missing = [...new Set(texts.filter((text) => !memory.has(text)))];
      if (missing.length > 0) {
        const vectors = await base.embed(missing, options);
        missing.forEach((text, i) => memory.set(text, vectors[i] as Float32Array));
      }
      return texts.map((text) => memory.get(text) as Float32Array);
    },
  };
  return memo;
}
