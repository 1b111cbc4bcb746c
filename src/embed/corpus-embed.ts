/**
 * Embedding a generation's unseen tool texts: in batches, each validated whole before any of
 * it is kept, at most `maxNewTexts` of them per build. Loaded by `CorpusIndex` with the first
 * build that has texts to embed, so a page whose corpus comes from a cache or a vectors file
 * never loads it.
 *
 * @module
 */
import { CorpusError } from './corpus-error.js';
import type { Embedder } from './embedder.js';
import { normalise } from './embedder.js';

/** How {@link embedMissing} runs. */
export interface EmbedMissingOptions {
  readonly signal: AbortSignal;
  /** Texts per embed call. */
  readonly batchSize: number;
  /** Most texts embedded by this call; past it the call keeps what it did and rejects. Default all. */
  readonly maxNewTexts?: number | undefined;
  /** Told after each batch (and once before the first): texts done, texts to do, this batch's size. */
  readonly embedded: (done: number, total: number, batch: number) => void;
}

/**
 * Embed `missing` into `store` as unit vectors. Rejects with a {@link CorpusError} when the
 * embedder's answer cannot rank, or when more than `maxNewTexts` texts were missing (after
 * embedding that many: the next build goes on from there).
 *
 * @example
 * await embedMissing(embedder, ['get weather: …'], store, { signal, batchSize: 256, embedded: () => {} })
 */
export async function embedMissing(
  embedder: Embedder,
  missing: readonly string[],
  store: Map<string, Float32Array>,
  options: EmbedMissingOptions,
): Promise<void> {
  const { signal, embedded } = options;
  const { dimensions } = embedder;
  const most = Math.min(missing.length, options.maxNewTexts ?? missing.length);
  const now = missing.slice(0, most);
  const total = now.length;
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  embedded(0, total, 0);
  for (let start = 0; start < total; start += batchSize) {
    const batch = now.slice(start, start + batchSize);
    const vectors = await embedder.embed(batch, { signal });
    signal.throwIfAborted();
    if (!Array.isArray(vectors) || vectors.length !== batch.length) {
      throw new CorpusError(
        `embedder returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${batch.length} tool texts`,
      );
    }
    // Validate the whole batch before storing any of it, so a bad batch leaves no trace.
    const unit = batch.map((text, i) => {
      const vector = vectors[i];
      if (!(vector instanceof Float32Array) || vector.length !== dimensions) {
        throw new CorpusError(
          `embedder returned a ${vector instanceof Float32Array ? vector.length : 'non-Float32Array'}-dimension vector for tool text ${preview(text)}, expected ${dimensions}`,
        );
      }
      const normalised = normalise(vector);
      if (!normalised) {
        throw new CorpusError(
          `embedder returned a vector that cannot rank (zero or non-finite) for tool text ${preview(text)}`,
        );
      }
      return normalised;
    });
    // Kept even if a later batch fails, so the retry embeds only what is still missing.
    batch.forEach((text, i) => {
      store.set(text, unit[i] as Float32Array);
    });
    embedded(Math.min(total, start + batch.length), total, batch.length);
  }
  const left = missing.length - most;
  if (left > 0) throw new CorpusError(`${left} of ${missing.length} tool texts left to embed (${most} a request)`);
}

function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}
