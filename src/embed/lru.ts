/**
 * Least-recently-used bookkeeping on a plain `Map` (which keeps insertion order): the one LRU
 * behind the memory vector cache and the corpus index's per-text and per-generation stores.
 */

/**
 * Store `value` under `key` as the most recent entry, then trim to `limit` entries.
 *
 * @example
 * const recent = new Map<string, number>()
 * lruSet(recent, 'a', 1, 2); lruSet(recent, 'b', 2, 2); lruSet(recent, 'c', 3, 2) // 'a' evicted
 */
export function lruSet<K, V>(map: Map<K, V>, key: K, value: V, limit = Number.POSITIVE_INFINITY): void {
  map.delete(key);
  map.set(key, value);
  lruTrim(map, limit);
}

/**
 * The value under `key`, marked most recent; undefined when absent.
 *
 * @example
 * lruGet(recent, 'b') // 2, and 'b' is now the last to go
 */
export function lruGet<K, V>(map: Map<K, V>, key: K): V | undefined {
  const value = map.get(key);
  if (value === undefined) return undefined;
  map.delete(key);
  map.set(key, value);
  return value;
}

/**
 * Evict the oldest entries until at most `limit` remain.
 *
 * @example
 * lruTrim(recent, 1)
 */
export function lruTrim<K, V>(map: Map<K, V>, limit: number): void {
  for (const key of map.keys()) {
    if (map.size <= limit) break;
    map.delete(key);
  }
}
