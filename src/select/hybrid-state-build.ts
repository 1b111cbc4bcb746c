/**
 * Building a vectors file that ships the hybrid's derived state (`hybrid-state.ts`) beside the
 * tool vectors: the vectors are embedded and encoded as usual, then a hybrid seeded from exactly
 * those bytes derives what it would on its first turn (the documents, the actions, the tool
 * links with their kind links), which is added as the `hyb1` section. `loopctl vectors` and the
 * gateway's `--build-vectors` build this way.
 */
import type { Embedder } from '../embed/embedder.js';
import { memoryVectorCache } from '../embed/vector-cache.js';
import { type BuildVectorsOptions, buildVectorsFile } from '../embed/vectors-build.js';
import { withVectorsSections } from '../embed/vectors-file.js';
import { registrySnapshot } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import { english } from '../text/english.js';
import { loadLexicon } from '../text/lexicon.js';
import { stemmedDocuments } from './blend-stages.js';
import { HybridSelector } from './hybrid-selector.js';
import { encodeHybridState, HYBRID_STATE_TAG } from './hybrid-state.js';
import { toolActionSets } from './multi-intent.js';

/**
 * Embed a registry's tool texts and derive the hybrid's state for exactly this list, as one
 * vectors file (version 2). A hybrid with the default lexicon and link options seeds its first
 * turn over the same list from it; any other selector reads the vectors alone.
 *
 * @example
 * const bytes = await buildHybridVectorsFile(useLiteEmbedder({ modelPath: 'models/use-lite' }), registry.schemas())
 * await writeFile('tools.lcv', bytes)
 */
export async function buildHybridVectorsFile(
  embedder: Embedder,
  tools: readonly ToolSchema[],
  options: BuildVectorsOptions = {},
): Promise<Uint8Array> {
  const plain = await buildVectorsFile(embedder, tools, options);
  return withVectorsSections(plain, {
    [HYBRID_STATE_TAG]: await deriveHybridState(embedder, tools, plain, options.signal),
  });
}

/**
 * The `hyb1` section for a list: what a hybrid seeded from `vectors` derives on its first turn.
 *
 * @example
 * const section = await deriveHybridState(embedder, tools, plainVectorsFile)
 */
export async function deriveHybridState(
  embedder: Embedder,
  tools: readonly ToolSchema[],
  vectors: Uint8Array,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const list = [...tools];
  const selector = new HybridSelector(embedder, { vectors, cache: memoryVectorCache() });
  const links = await selector.toolLinks(list, signal);
  const snapshot = registrySnapshot(list);
  const lexicon = await loadLexicon(english);
  const documents = snapshot.get(stemmedDocuments(lexicon.stem));
  const actions = snapshot.get(toolActionSets(lexicon));
  return encodeHybridState(list, embedder, { documents, actions, links });
}
