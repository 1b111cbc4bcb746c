/**
 * The CLI's vectors file: the tool vectors plus the hybrid's derived state for exactly this
 * list (section `hyb1`), so a hybrid's first turn over it derives nothing.
 */
import type { Embedder } from '../embed/embedder.js';
import { memoryVectorCache } from '../embed/vector-cache.js';
import { type BuildVectorsOptions, buildVectorsFile } from '../embed/vectors-build.js';
import { withVectorsSections } from '../embed/vectors-file.js';
import type { ToolSchema } from '../registry/schema.js';
import { HybridSelector } from '../select/hybrid-selector.js';
import { HYBRID_STATE_TAG } from '../select/hybrid-state.js';
import { deriveHybridState } from '../select/hybrid-state-build.js';

/**
 * Embed a registry's tool texts and derive the hybrid's state for this list, as one vectors file
 * (version 2). Any other selector reads the vectors alone.
 *
 * @example
 * const bytes = await buildHybridVectorsFile(embedder, loadTools('tools.json'), { precision: 'f16' })
 */
export async function buildHybridVectorsFile(
  embedder: Embedder,
  tools: readonly ToolSchema[],
  options: BuildVectorsOptions = {},
): Promise<Uint8Array> {
  const plain = await buildVectorsFile(embedder, tools, options);
  const selector = new HybridSelector(embedder, { vectors: plain, cache: memoryVectorCache() });
  const state = await deriveHybridState(selector, tools, options.signal);
  return withVectorsSections(plain, { [HYBRID_STATE_TAG]: state });
}
