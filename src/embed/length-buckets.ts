/**
 * Group texts of similar token length into model batches so little compute goes on padding:
 * a dense batch costs `rows × longest row`, so a 40-token text in a batch of 12-token texts
 * makes every row pay for 40. Texts are taken shortest first; a batch grows while its padded
 * size stays within `maxPadding` of its real tokens and under the row and token caps.
 */
import { mergeOptions } from '../options.js';

/** Options for {@link lengthBuckets}. */
export interface LengthBucketOptions {
  /** Rows per batch at most. Default 32. */
  maxRows?: number;
  /** Padded tokens (rows × width) per batch at most. Default 4096. */
  maxTokens?: number;
  /** Padding allowed as a share of the real tokens. Default 0.1. */
  maxPadding?: number;
}

/**
 * Batches of indexes into `lengths` (every index exactly once), each batch's rows of similar
 * length, shortest batches first.
 *
 * @example
 * lengthBuckets([12, 40, 12, 13]) // [[0, 2, 3], [1]]
 */
export function lengthBuckets(lengths: readonly number[], options: LengthBucketOptions = {}): number[][] {
  const { maxRows, maxTokens, maxPadding } = mergeOptions({ maxRows: 32, maxTokens: 4096, maxPadding: 0.1 }, options);
  const order = lengths.map((_, i) => i).sort((a, b) => (lengths[a] as number) - (lengths[b] as number) || a - b);
  const batches: number[][] = [];
  let batch: number[] = [];
  let real = 0;
  for (const index of order) {
    const length = Math.max(1, lengths[index] as number);
    // Sorted ascending, so the newcomer sets the batch's width.
    const padded = (batch.length + 1) * length;
    const fits = batch.length < maxRows && padded <= maxTokens && padded <= (real + length) * (1 + maxPadding);
    if (batch.length > 0 && !fits) {
      batches.push(batch);
      batch = [];
      real = 0;
    }
    batch.push(index);
    real += length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
