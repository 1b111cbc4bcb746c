/**
 * One parsed tool list per distinct `tools` array, keyed by its exact text. A client resends
 * the same tools every turn; handing the selectors the same list object each time keeps their
 * per-list state warm (the BM25 index, the embedding corpus fingerprint), so a warm request
 * neither re-indexes nor re-hashes the corpus. The corpus vectors themselves persist per tool
 * set in the configured VectorCache (memory, KV), keyed by a hash of the embedded texts.
 *
 * The key is the text itself, not a digest of it: a `Map` compares long strings natively
 * (a length check, then the bytes), which is cheaper than hashing 50 KB in JavaScript on every
 * request, and it cannot collide.
 */
import type { ToolSchema } from '../../registry/schema.js';

/** What is kept per tool set. */
export interface ToolSet {
  /** The selectable tools as selectors see them (one object per tool set, so warm). */
  readonly all: readonly ToolSchema[];
  /** Approximate token cost of each client `tools` entry, by index. */
  readonly costs: readonly number[];
}

/** A bounded map from tools text to its {@link ToolSet}. */
export interface ToolSetCache {
  /** The set for `toolsText`, built by `build` on a miss. */
  get(toolsText: string, build: () => ToolSet): ToolSet;
  readonly size: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A least-recently-used tool-set cache.
 *
 * @example
 * const cache = toolSetCache(32)
 * const { all } = cache.get(text.slice(span.start, span.end), () => ({ all: schemas, costs }))
 */
export function toolSetCache(maxEntries = 32): ToolSetCache {
  const entries = new Map<string, ToolSet>();
  return {
    get(toolsText, build) {
      const hit = entries.get(toolsText);
      if (hit) {
        entries.delete(toolsText);
        entries.set(toolsText, hit);
        return hit;
      }
      const list = build();
      // A slice may share memory with the whole request body; keep a copy of just the tools.
      entries.set(decoder.decode(encoder.encode(toolsText)), list);
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
