/**
 * Where corpus vectors live between runs: memory, IndexedDB, Workers KV. One small surface so
 * storage is a function you can swap. Values are opaque bytes; the embedding selector
 * encodes and checks them, so a corrupt entry is detected and rebuilt, never trusted.
 *
 * @example
 * const cache: VectorCache = memoryVectorCache({ maxEntries: 8 })
 * await cache.set('key', new Uint8Array([1, 2, 3]))
 */

import { mergeOptions } from '../options.js';
import { lruGet, lruSet } from './lru.js';
export interface VectorCache {
  get(key: string): Promise<Uint8Array | undefined>;
  set(key: string, value: Uint8Array): Promise<void>;
  delete?(key: string): Promise<void>;
}

/** Options for {@link memoryVectorCache}. */
export interface MemoryVectorCacheOptions {
  /** Entries kept before the least recently used is evicted. Default 16. */
  maxEntries?: number;
}

/**
 * A bounded in-memory cache (least recently used goes first).
 *
 * @example
 * const selector = new EmbeddingSelector(embedder, { cache: memoryVectorCache() })
 */
export function memoryVectorCache(options: MemoryVectorCacheOptions = {}): VectorCache {
  const { maxEntries } = mergeOptions({ maxEntries: 16 }, options);
  const entries = new Map<string, Uint8Array>();
  return {
    async get(key) {
      return lruGet(entries, key);
    },
    async set(key, value) {
      lruSet(entries, key, value, maxEntries);
    },
    async delete(key) {
      entries.delete(key);
    },
  };
}
