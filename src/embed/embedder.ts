/** Options for one embedding call. */
export interface EmbedOptions {
  readonly signal?: AbortSignal;
}

/**
 * Turns texts into vectors. `id` names the model, dtype and pooling; it is part of every
 * cache key, so two embedders with different ids never share cached vectors.
 *
 * @example
 * const embedder: Embedder = {
 *   id: 'my-model/fp32/mean',
 *   dimensions: 384,
 *   embed: async (texts) => texts.map(() => new Float32Array(384)),
 * }
 */
export interface Embedder {
  readonly id: string;
  readonly dimensions: number;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /**
   * The share (0–1) of a text, as far as the model reads it, that its vocabulary knows, counted
   * in units of meaning (words and letters, not digits or punctuation: an id or a URL in a
   * prompt cannot make it look read); undefined when unknown (not loaded yet, nothing to read).
   * A prompt in a script the model never saw embeds to a vector that says little, and a dense
   * ranking should not trust it.
   */
  vocabularyCoverage?(text: string): number | undefined;
}

/**
 * An embedder backed by a model that loads once: `load()` is idempotent (the first `embed`
 * calls it otherwise), `backend` says what actually runs, `dispose()` frees it.
 *
 * @example
 * const embedder: LoadableEmbedder<{ device: string }> = useLiteEmbedder({ modelPath: 'models/use-lite' })
 * const { device } = await embedder.load()
 */
export interface LoadableEmbedder<Backend> extends Embedder {
  /** What runs, once loaded; undefined before. */
  readonly backend: Backend | undefined;
  /** Load now (otherwise the first `embed` does); idempotent. */
  load(): Promise<Backend>;
  /** Release the model; the next call loads again. */
  dispose(): Promise<void>;
}

/** Progress of model loading or corpus embedding, for a progress bar. */
export interface EmbedProgress {
  readonly phase: 'load' | 'corpus';
  readonly done: number;
  readonly total: number;
}

/** Dot product; equals cosine similarity for normalised vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/** Scale to unit length. Returns undefined for a vector that cannot rank (empty, zero, non-finite). */
export function normalise(vector: Float32Array): Float32Array | undefined {
  if (vector.length === 0) return undefined;
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const value = vector[i] as number;
    if (!Number.isFinite(value)) return undefined;
    sum += value * value;
  }
  if (!(sum > 0) || !Number.isFinite(sum)) return undefined;
  const scale = 1 / Math.sqrt(sum);
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) * scale;
  return out;
}

/**
 * Dot every row of a row-major matrix of unit vectors with a unit query: the cosine of each
 * row, written into `out` (one entry per row).
 *
 * @example
 * const out = new Float32Array(corpus.count)
 * scoreRows(corpus.matrix, corpus.count, corpus.dimensions, query, out)
 */
export function scoreRows(
  matrix: Float32Array,
  count: number,
  dimensions: number,
  query: Float32Array,
  out: Float32Array,
): void {
  for (let row = 0, offset = 0; row < count; row++, offset += dimensions) {
    let sum = 0;
    for (let j = 0; j < dimensions; j++) sum += (matrix[offset + j] as number) * (query[j] as number);
    out[row] = sum;
  }
}
