/**
 * `loopctl/vectors`: precomputed corpus vectors as a build artifact. Build a vectors file for a
 * registry once (`buildVectorsFile`, or `npx loopctl vectors`), ship it beside the app, and seed
 * `EmbeddingSelector` / `HybridSelector` with it (their `vectors` option) so a first turn embeds
 * only the query. `readVectorsFile` checks a file and says why it refuses one.
 *
 * @example
 * import { buildVectorsFile } from 'loopctl/vectors'
 * const bytes = await buildVectorsFile(embedder, registry.schemas())
 * await writeFile('public/vectors/tools.lcv', bytes)
 */

export type { BuildVectorsOptions } from './embed/vectors-build.js';
export { buildVectorsFile } from './embed/vectors-build.js';
export type {
  VectorsEntry,
  VectorsFile,
  VectorsFileHeader,
  VectorsFileResult,
  VectorsPrecision,
} from './embed/vectors-file.js';
export {
  encodeVectorsFile,
  MAX_SECTIONS,
  readVectorsFile,
  VECTORS_FILE_VERSION,
  vectorsTextKey,
  withVectorsSections,
} from './embed/vectors-file.js';
export type { LoadedVectors } from './embed/vectors-source.js';
export { loadVectors } from './embed/vectors-source.js';
export type { HybridState, HybridStateResult } from './select/hybrid-state.js';
export { HYBRID_STATE_TAG, hybridStateKey, readHybridState } from './select/hybrid-state.js';
export { deriveHybridState } from './select/hybrid-state-build.js';
