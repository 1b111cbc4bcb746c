import type { Embedder } from '../embed/embedder.js';
import { Bm25Selector } from '../select/bm25-selector.js';
import { fileVectorCache } from '../adapters/file-cache.js';
import type { VectorCache } from '../embed/vector-cache.js';
import { memoryVectorCache } from '../embed/vector-cache.js';
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
}

type Factory = (spec: SelectorSpec) => AnySelector | Promise<AnySelector>;

async function needEmbedder(spec: SelectorSpec): Promise<Embedder> {
  return spec.embedder ? spec.embedder() : defaultEmbedder();
}

let cached: Promise<Embedder> | undefined;
let sharedCache: VectorCache | undefined;

// Corpus vectors persist between CLI runs, so only the first run over a registry embeds it.
function corpusCache(): VectorCache {
  sharedCache ??= fileVectorCache({ directory: 'node_modules/.cache/loopctl/vectors' });
  return sharedCache;
}

// Corpus vectors on disk; learned examples only for this run (an eval must not pick up an
// earlier run's --learn).
function caches(): { cache: VectorCache; learnedCache: VectorCache } {
  return { cache: corpusCache(), learnedCache: memoryVectorCache() };
}

/** The offline default model, from the package's `models/use-lite` (built by `npm run build:model`). */
export function defaultEmbedder(modelPath?: string): Promise<Embedder> {
  if (!cached || modelPath) {
    // A variable, not a literal: bundlers would otherwise try to inline the folder as an asset.
    const relative = '../models/use-lite/';
    const path = modelPath ?? decodeURIComponent(new URL(relative, import.meta.url).pathname);
    cached = import('../adapters/use-lite.js').then(({ useLiteEmbedder }) => useLiteEmbedder({ modelPath: path }));
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
    embedding: async (spec: SelectorSpec) => new EmbeddingSelector(await needEmbedder(spec), { topK: spec.k, ...caches() }),
    'embedding-adaptive': async (spec: SelectorSpec) =>
      new EmbeddingSelector(await needEmbedder(spec), {
        topK: 16,
        adaptive: { floor: 3, ceiling: 16, span: 0.7 },
        ...caches(),
      }),
    hybrid: async (spec: SelectorSpec) => new HybridSelector(await needEmbedder(spec), { topK: spec.k, ...caches() }),
    'hybrid-adaptive': async (spec: SelectorSpec) => new HybridSelector(await needEmbedder(spec), { adaptive: true, ...caches() }),
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
