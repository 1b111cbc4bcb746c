/**
 * The hybrid selector is optional in this build: `src/select/hybrid-selector.ts` may not have
 * landed yet. `import.meta.glob` matches nothing when the file is absent, so the page builds
 * either way and shows a hybrid column only when there is one.
 */
import type { EmbeddingSelector } from '../src/select/embedding-selector.js';
import type { AsyncToolSelector, ToolSelector } from '../src/select/selector.js';

/** Builds the hybrid selector over the page's embedding selector, advertising `k` tools. */
export type HybridFactory = (embedding: EmbeddingSelector, k: number) => AsyncToolSelector | ToolSelector;

const modules = import.meta.glob<Record<string, unknown>>('../src/select/hybrid-selector.ts');

/**
 * The hybrid factory, or undefined when the module is absent or its shape is not recognised.
 *
 * @example
 * const factory = await loadHybrid()
 * const hybrid = factory?.(embeddingSelector, 6)
 */
export async function loadHybrid(): Promise<HybridFactory | undefined> {
  const load = Object.values(modules)[0];
  if (!load) return undefined;
  const mod = await load();
  const Hybrid = mod.HybridSelector as (new (embedding: EmbeddingSelector, options: { topK: number }) => AsyncToolSelector) | undefined;
  if (typeof Hybrid !== 'function') return undefined;
  return (embedding, k) => new Hybrid(embedding, { topK: k });
}
