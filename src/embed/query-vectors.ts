/**
 * Query texts as unit vectors for a dense selector: one embed call for the texts it needs,
 * every answer checked before it can rank, and the most recent prompts remembered (the loop's
 * learning records the prompt a turn just ranked, so it need not embed it twice).
 */
import type { Embedder } from './embedder.js';
import { normalise } from './embedder.js';
import { lruSet } from './lru.js';

/** Recent query vectors kept, by text. */
const QUERY_MEMORY = 32;

/** The embedder answered, but not with vectors that can rank (the reason is the message). */
export class QueryVectorError extends Error {
  override readonly name = 'QueryVectorError';
}

/**
 * The query side of a dense selector (shared by its derived copies, which use the same embedder).
 *
 * @example
 * const queries = new QueryVectors(embedder)
 * const [unit] = await queries.embed(['weather in Oslo'], signal, true)
 */
export class QueryVectors {
  readonly embedder: Embedder;
  readonly #recent = new Map<string, Float32Array>();

  constructor(embedder: Embedder) {
    this.embedder = embedder;
  }

  /**
   * Unit vectors for `texts`, in one embed call. Ranking embeds afresh every turn (`fresh`);
   * learning takes a just-ranked prompt's vector from the recent-query memory. Rejects with a
   * {@link QueryVectorError} when the embedder's answer cannot rank.
   */
  async embed(texts: readonly string[], signal: AbortSignal | undefined, fresh = false): Promise<Float32Array[]> {
    const recent = this.#recent;
    const missing = [...new Set(fresh ? texts : texts.filter((text) => !recent.has(text)))];
    const found = new Map<string, Float32Array>();
    if (!fresh) for (const text of texts) if (recent.has(text)) found.set(text, recent.get(text) as Float32Array);
    if (missing.length > 0) {
      const raw = await embedMany(this.embedder, missing, signal);
      const mismatch = () =>
        new QueryVectorError(
          `query embedding returned ${Array.isArray(raw) ? raw.length : 'no'} vectors for ${missing.length} text${missing.length === 1 ? '' : 's'}`,
        );
      if (!Array.isArray(raw) || raw.length !== missing.length) throw mismatch();
      missing.forEach((text, i) => {
        const vector = raw[i];
        if (!(vector instanceof Float32Array)) throw mismatch();
        if (vector.length !== this.embedder.dimensions) {
          throw new QueryVectorError(
            `query vector has ${vector.length} dimensions, expected ${this.embedder.dimensions}`,
          );
        }
        const unit = normalise(vector);
        if (!unit) throw new QueryVectorError('query vector cannot rank (zero or non-finite)');
        found.set(text, unit);
        lruSet(recent, text, unit, QUERY_MEMORY);
      });
    }
    return texts.map((text) => found.get(text) as Float32Array);
  }
}

// `async` turns a synchronous throw from a hand-written embedder into a rejection.
async function embedMany(
  embedder: Embedder,
  texts: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Float32Array[]> {
  return embedder.embed(texts, signal ? { signal } : {});
}
