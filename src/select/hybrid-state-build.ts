/**
 * Deriving the hybrid's shipped state (`hybrid-state.ts`) for a vectors file: a hybrid seeded
 * from exactly the file's bytes derives what it would on its first turn (the documents, the
 * name and parameter words, the tool links with their kind links), and that becomes the `hyb1` section.
 * `loopctl vectors` and the gateway's `--build-vectors` build this way (`cli/hybrid-vectors.ts`).
 */
import { registrySnapshot } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import { english } from '../text/english.js';
import { loadLexicon } from '../text/lexicon.js';
import { nameStems, stemmedDocuments } from './blend-stages.js';
import type { HybridSelector } from './hybrid-selector.js';
import { encodeHybridState } from './hybrid-state.js';
import { parameterWords } from './multi-intent.js';

/**
 * The `hyb1` section for a list: what `selector` (a default hybrid seeded from the vectors file
 * the section will join) derives on its first turn over `tools`.
 *
 * @example
 * const plain = await buildVectorsFile(embedder, tools)
 * const state = await deriveHybridState(new HybridSelector(embedder, { vectors: plain }), tools)
 * const bytes = withVectorsSections(plain, { [HYBRID_STATE_TAG]: state })
 */
export async function deriveHybridState(
  selector: Pick<HybridSelector, 'toolLinks' | 'dense'>,
  tools: readonly ToolSchema[],
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const list = [...tools];
  const links = await selector.toolLinks(list, signal);
  const snapshot = registrySnapshot(list);
  const lexicon = await loadLexicon(english);
  const documents = snapshot.get(stemmedDocuments(lexicon.stem));
  const names = snapshot.get(nameStems(lexicon.stem));
  const parameters = snapshot.get(parameterWords(lexicon.stem));
  return encodeHybridState(list, selector.dense.embedder, { documents, names, parameters, links });
}
