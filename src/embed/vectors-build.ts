/**
 * Building a vectors file: embed every distinct tool text of a registry once and encode the
 * result (see {@link encodeVectorsFile}). The CLI's `loopctl vectors` is this plus file I/O.
 */

import { mergeOptions } from '../options.js';
import type { ToolSchema } from '../registry/schema.js';
import { toolText } from '../text/words.js';
import type { Embedder, EmbedProgress } from './embedder.js';
import type { VectorsPrecision } from './vectors-file.js';
import { encodeVectorsFile } from './vectors-file.js';

/** Options for {@link buildVectorsFile}. */
export interface BuildVectorsOptions {
  /** Default `'f16'`. */
  precision?: VectorsPrecision;
  /** Texts per embed call. Default 256. */
  batchSize?: number;
  /** `{ phase: 'corpus', done, total }` tool texts, after every call. */
  onProgress?: (progress: EmbedProgress) => void;
  signal?: AbortSignal;
}

/**
 * Embed a registry's tool texts and return the vectors file bytes.
 *
 * @example
 * const bytes = await buildVectorsFile(useLiteEmbedder({ modelPath: 'models/use-lite' }), registry.schemas())
 * await writeFile('tools.lcv', bytes)
 */
export async function buildVectorsFile(
  embedder: Embedder,
  tools: readonly ToolSchema[],
  options: BuildVectorsOptions = {},
): Promise<Uint8Array> {
  const { precision, batchSize, onProgress, signal } = mergeOptions(
    { precision: 'f16' as VectorsPrecision, batchSize: 256 },
    options,
  );
  const texts = [...new Set(tools.map((tool) => toolText(tool.name, tool.description ?? '')))];
  const step = Math.max(1, Math.floor(batchSize));
  const entries: { text: string; vector: Float32Array }[] = [];
  onProgress?.({ phase: 'corpus', done: 0, total: texts.length });
  for (let start = 0; start < texts.length; start += step) {
    signal?.throwIfAborted();
    const batch = texts.slice(start, start + step);
    const vectors = await embedder.embed(batch, signal ? { signal } : {});
    if (!Array.isArray(vectors) || vectors.length !== batch.length) {
      throw new Error(
        `embedder returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${batch.length} texts`,
      );
    }
    batch.forEach((text, i) => {
      entries.push({ text, vector: vectors[i] as Float32Array });
    });
    onProgress?.({ phase: 'corpus', done: entries.length, total: texts.length });
  }
  return encodeVectorsFile({ embedderId: embedder.id, dimensions: embedder.dimensions, precision }, entries);
}
