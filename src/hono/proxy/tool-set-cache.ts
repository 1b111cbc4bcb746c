/**
 * One parsed tool list per distinct `tools` array, keyed by a hash of its exact text. A
 * client resends the same tools every turn; handing the selectors the same list object each
 * time keeps their per-list state warm (the BM25 index, the embedding corpus fingerprint),
 * so a warm request neither re-indexes nor re-hashes the corpus. The corpus vectors
 * themselves persist per tool set in the configured VectorCache (memory, KV).
 */
import { Hash64 } from '../../embed/corpus-hash.js';
import type { ToolSchema } from '../../registry/schema.js';

/** A bounded map from tools text to the list the selectors see. */
export interface ToolSetCache {
  /** The list for `toolsText`, built by `build` on a miss. */
  get(toolsText: string, build: () => readonly ToolSchema[]): readonly ToolSchema[];
  readonly size: number;
}

/**
 * A least-recently-used tool-set cache.
 *
 * @example
 * const cache = toolSetCache(32)
 * const all = cache.get(text.slice(span.start, span.end), () => tools.map((tool) => tool.schema!))
 */
export function toolSetCache(maxEntries = 32): ToolSetCache {
  const entries = new Map<string, readonly ToolSchema[]>();
  return {
    get(toolsText, build) {
      const key = `${toolsText.length}:${new Hash64().update(toolsText).digest()}`;
      let list = entries.get(key);
      if (list) entries.delete(key);
      else list = build();
      entries.set(key, list);
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
      return list;
    },
    get size() {
      return entries.size;
    },
  };
}
