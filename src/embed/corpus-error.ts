/**
 * The corpus cannot be built (or not in full): what the embedder returned cannot rank, or a
 * request's share of embedding is spent. The selector fails open (the hybrid ranks lexically).
 *
 * @example
 * try { await index.load(all) } catch (error) { if (error instanceof CorpusError) failOpen(error.message) }
 */
export class CorpusError extends Error {
  override readonly name = 'CorpusError';
}
