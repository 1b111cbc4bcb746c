/**
 * One parsed tool list per distinct `tools` array, keyed by its exact text. A client resends
 * the same tools every turn, so a warm request neither parses nor scans them again: the
 * request parser recognises the cached text in place (see `parseProxyRequest`), and the
 * selectors get the same list object every time, which keeps their per-list state warm (the
 * BM25 index, the embedding corpus fingerprint). The corpus vectors themselves persist per
 * tool set in the configured VectorCache (memory, KV), keyed by a hash of the embedded texts.
 *
 * The key is the text itself, not a digest of it: comparing a slice of the body with a cached
 * string is a native memory compare, cheaper than hashing 50 KB in JavaScript on every request,
 * and it cannot collide. The cache is bounded by entries and by total characters, so large
 * tool lists cannot pin unbounded memory.
 */

import { lruGet, lruSet } from '../../embed/lru.js';
import { mergeOptions } from '../../options.js';
import type { ToolSchema } from '../../registry/schema.js';
import type { ClientTool } from './proxy-protocol.js';

/** What is kept per tool set. */
export interface ToolSet {
  /** The client's `tools` entries, their spans relative to the array's opening bracket. */
  readonly tools: readonly ClientTool[];
  /** The selectable tools as selectors see them (one object per tool set, so warm). */
  readonly all: readonly ToolSchema[];
  /** Approximate token cost of each client `tools` entry, by index. */
  readonly costs: readonly number[];
  /** The list holds a vendor tool search tool or deferred (`defer_loading`) tools. */
  readonly nativeSearch: boolean;
  /**
   * Anthropic: an entry carries a `cache_control` breakpoint. Kept with the set because a warm
   * request's body is parsed with its `tools` replaced by `[]`: the breakpoint check cannot see them.
   */
  readonly breakpoints: boolean;
}

/** Bounds of a {@link ToolSetCache}. */
export interface ToolSetCacheOptions {
  /** Most tool sets kept. Default 32. */
  maxEntries?: number;
  /** Most characters of `tools` text kept, all entries together. Default 8 Mi (16 MiB of strings). */
  maxChars?: number;
}

/** A bounded, least-recently-used map from `tools` text to its {@link ToolSet}. */
export interface ToolSetCache {
  /**
   * The cached tools text that `text` holds at offset `at`, with its set; undefined when none
   * does. At most one can: each key is a whole JSON array, so where it ends is fixed.
   */
  match(text: string, at: number): { readonly toolsText: string; readonly set: ToolSet } | undefined;
  /** Remember `set` for `toolsText` (not kept when the text alone exceeds `maxChars`). */
  add(toolsText: string, set: ToolSet): void;
  /** Tool sets held. */
  readonly size: number;
  /** Characters of tools text held. */
  readonly chars: number;
}

const DEFAULTS: Required<ToolSetCacheOptions> = { maxEntries: 32, maxChars: 8 * 1024 * 1024 };

/**
 * A tool-set cache.
 *
 * @example
 * const cache = toolSetCache({ maxEntries: 32 })
 * cache.add(toolsText, { tools, all, costs, nativeSearch, breakpoints })
 * cache.match(body, toolsStart)?.set.all // the same list object on every hit
 */
export function toolSetCache(options: ToolSetCacheOptions = {}): ToolSetCache {
  const { maxEntries, maxChars } = mergeOptions(DEFAULTS, options);
  const entries = new Map<string, ToolSet>();
  let chars = 0;
  // Most requests repeat the previous tool set: try it before walking the rest.
  let recent: string | undefined;

  const matches = (text: string, at: number, key: string): boolean =>
    text.charCodeAt(at + key.length - 1) === 0x5d && text.slice(at, at + key.length) === key;

  return {
    match(text, at) {
      if (text.charCodeAt(at) !== 0x5b) return undefined;
      let found = recent !== undefined && matches(text, at, recent) ? recent : undefined;
      if (found === undefined) {
        for (const key of entries.keys()) {
          if (matches(text, at, key)) {
            found = key;
            break;
          }
        }
      }
      if (found === undefined) return undefined;
      const set = lruGet(entries, found);
      if (set === undefined) return undefined;
      recent = found;
      return { toolsText: found, set };
    },
    add(toolsText, set) {
      if (toolsText.length > maxChars || entries.has(toolsText)) return;
      // A slice may share memory with the whole request body; keep a copy of just the tools.
      const key = flatCopy(toolsText);
      lruSet(entries, key, set);
      chars += key.length;
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries && chars <= maxChars) break;
        entries.delete(oldest);
        chars -= oldest.length;
        if (oldest === recent) recent = undefined;
      }
      recent = entries.has(key) ? key : recent;
    },
    get size() {
      return entries.size;
    },
    get chars() {
      return chars;
    },
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function flatCopy(text: string): string {
  return decoder.decode(encoder.encode(text));
}
