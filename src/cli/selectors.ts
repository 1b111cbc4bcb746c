import { fileVectorCache } from '../adapters/file-cache.js';
import type { UseLiteDevice, UseLiteEmbedder } from '../adapters/use-lite.js';
import type { Embedder } from '../embed/embedder.js';
import type { VectorCache } from '../embed/vector-cache.js';
import { memoryVectorCache } from '../embed/vector-cache.js';
import type { VectorsSource } from '../embed/vectors-source.js';
import type { ToolSchema } from '../registry/schema.js';
import { EmbeddingSelector } from '../select/embedding-selector.js';
import { HybridSelector } from '../select/hybrid-selector.js';
import type { NamedSelectorFactory } from '../select/named-selectors.js';
import { BUILT_IN_SELECTORS, namedSelectors } from '../select/named-selectors.js';
import type { AsyncToolSelector } from '../select/selector.js';
import type { ToolLinks } from '../select/tool-links.js';

/** What a CLI selector factory is given. */
export interface SelectorSpec {
  /** The ranked selectors' k (adaptive ones keep their own ceiling). */
  k: number;
  /** The embedder for dense selectors; loaded on first use when absent. */
  embedder?: () => Promise<Embedder>;
  /** A precomputed vectors file seeding the dense selectors' corpus. */
  vectors?: VectorsSource;
  /** Keep corpus vectors in memory only (no file cache between runs). */
  noCache?: boolean;
}

async function needEmbedder(spec: SelectorSpec): Promise<Embedder> {
  return spec.embedder ? spec.embedder() : defaultEmbedder();
}

let cached: Promise<UseLiteEmbedder> | undefined;
let sharedCache: VectorCache | undefined;

// Corpus vectors persist between CLI runs, so only the first run over a registry embeds it.
function corpusCache(spec: SelectorSpec): VectorCache {
  if (spec.noCache) return memoryVectorCache();
  sharedCache ??= fileVectorCache({ directory: 'node_modules/.cache/loopctl/vectors' });
  return sharedCache;
}

/**
 * The offline default model, from `modelPath` or the package's `models/use-lite` (`npm run build:model`).
 * `device` defaults to `'auto'`: onnxruntime-node when installed, else WASM after one warning.
 * `numThreads` is the native session's intra-op threads; on WASM it applies to the first load in
 * a process (onnxruntime-web fixes it then).
 *
 * @example
 * const embedder = await defaultEmbedder(undefined, 2) // native, 2 threads, when onnxruntime-node is installed
 */
export function defaultEmbedder(
  modelPath?: string,
  numThreads?: number,
  device?: UseLiteDevice,
): Promise<UseLiteEmbedder> {
  if (!cached || modelPath || numThreads !== undefined || device !== undefined) {
    // A variable, not a literal: bundlers would otherwise try to inline the folder as an asset.
    const relative = '../models/use-lite/';
    const path = modelPath ?? decodeURIComponent(new URL(relative, import.meta.url).pathname);
    cached = import('../adapters/use-lite.js').then(({ useLiteEmbedder }) =>
      useLiteEmbedder({ modelPath: path, numThreads, device }),
    );
  }
  return cached;
}

/** The selectors the CLI knows, by name: the one table the worker and the demo use too. */
export const SELECTOR_FACTORIES: Readonly<Record<string, NamedSelectorFactory>> = BUILT_IN_SELECTORS;

const table = namedSelectors();

/** Whether a selector's output size depends on k. */
export const usesK = (name: string): boolean => table.usesK(name);

/** Whether a selector embeds (needs the model; its timings include a query embedding). */
export const isDense = (name: string): boolean => table.isDense(name);

/**
 * Tool texts the selector's corpus index has embedded so far (0 for selectors that do not embed).
 *
 * @example
 * const before = corpusEmbeds(selector); await selectFor(selector, prompt, tools, signal)
 * const embeddedNow = corpusEmbeds(selector) - before
 */
export function corpusEmbeds(selector: AsyncToolSelector): number {
  if (selector instanceof EmbeddingSelector) return selector.stats.corpusEmbeds;
  if (selector instanceof HybridSelector) return selector.dense.stats.corpusEmbeds;
  return 0;
}

/**
 * The tool links a selector follows for `tools` (the hybrid's), or undefined for selectors
 * that follow none.
 *
 * @example
 * const links = await toolLinksOf(selector, tools)
 * links?.links // [{ tool: 'assign_task', parameter: 'task_id', providers: ['search_tasks'], … }]
 */
export async function toolLinksOf(
  selector: AsyncToolSelector,
  tools: readonly ToolSchema[],
): Promise<ToolLinks | undefined> {
  return selector instanceof HybridSelector ? selector.toolLinks(tools) : undefined;
}

/**
 * Build a selector by name, or throw listing the known names. Each call builds afresh, with
 * corpus vectors persisted between CLI runs in the file cache (unless `noCache`), seeded from
 * `vectors` when given. Learned examples (`--learn`) stay in memory for this selector only: an
 * eval must not pick up an earlier run's examples.
 */
export async function makeSelector(name: string, spec: SelectorSpec): Promise<AsyncToolSelector> {
  const embedder = () => needEmbedder(spec);
  return namedSelectors({
    embedder,
    cache: corpusCache(spec),
    embeddingOptions: { learnedCache: memoryVectorCache(), vectors: spec.vectors },
  }).get(name, spec.k);
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
        for (const [i, text] of missing.entries()) memory.set(text, vectors[i] as Float32Array);
      }
      return texts.map((text) => memory.get(text) as Float32Array);
    },
  };
  return memo;
}
