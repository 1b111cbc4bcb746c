/**
 * A {@link VectorCache} over Cloudflare Workers KV. Values are binary; one over the chunk size
 * (KV caps a value at 25 MiB) is split across keys under a manifest that records the chunk
 * count, total length and a checksum. A missing, short or mixed chunk (KV is eventually
 * consistent, so a reader can see parts of two writes) reads as a miss, never a crash.
 *
 * @module loopctl/kv
 */

import { digestHex } from '../digest.js';
import type { VectorCache } from '../embed/vector-cache.js';
import { checksumBytes } from '../hash.js';
import { mergeOptions } from '../options.js';

/**
 * The part of a Workers `KVNamespace` binding this adapter uses. Structural, so no
 * `@cloudflare/workers-types` import: a real binding satisfies it, and so does a test double.
 *
 * @example
 * const map = new Map<string, ArrayBuffer>()
 * const fake: KvNamespaceLike = {
 *   get: async (key) => map.get(key) ?? null,
 *   put: async (key, value) => void map.set(key, value),
 *   delete: async (key) => void map.delete(key),
 * }
 */
export interface KvNamespaceLike {
  get(key: string, type: 'arrayBuffer'): Promise<ArrayBuffer | null>;
  put(key: string, value: ArrayBuffer, options?: { expirationTtl?: number }): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * The KV key a worker reads a precomputed vectors file from (`loopctl vectors --kv-bulk`
 * writes a `wrangler kv bulk put` file for it). Stored raw, outside the corpus cache's keys.
 */
export const VECTORS_KV_KEY = 'loopctl:vectors-file';

/**
 * A vectors source reading the file stored under `key` in a KV namespace; an unset key is no
 * file (no warning).
 *
 * @example
 * new EmbeddingSelector(embedder, { cache: kvVectorCache(env.VECTORS), vectors: kvVectorsFile(env.VECTORS) })
 */
export function kvVectorsFile(
  namespace: KvNamespaceLike,
  key: string = VECTORS_KV_KEY,
): () => Promise<ArrayBuffer | null> {
  return () => namespace.get(key, 'arrayBuffer');
}

/** Options for {@link kvVectorCache}. */
export interface KvVectorCacheOptions {
  /** Prepended to every KV key. Default `'loopctl:'`. */
  prefix?: string;
  /** Largest value written under one key. Default 20 MiB (KV's limit is 25 MiB). */
  chunkBytes?: number;
  /** Seconds until entries expire (KV's minimum is 60). Default: never. */
  expirationTtl?: number;
}

const MAGIC = [0x4c, 0x43, 0x4b, 0x56] as const; // "LCKV"
const KIND_INLINE = 0;
const KIND_MANIFEST = 1;
const INLINE_HEADER = 5; // magic + kind
const MANIFEST_BYTES = 20; // magic + kind + 3 pad + chunks u32 + length u32 + checksum u32
const MAX_KEY_BYTES = 512; // KV's key limit
const CHUNK_SUFFIX_ROOM = 16;

/**
 * Corpus vectors persisted in a Workers KV namespace, shared by every isolate that binds it.
 *
 * @example
 * import { kvVectorCache } from 'loopctl/kv'
 * export default {
 *   async fetch(request: Request, env: { VECTORS: KVNamespace }) {
 *     const selector = new EmbeddingSelector(embedder, { cache: kvVectorCache(env.VECTORS) })
 *     // ...
 *   },
 * }
 */
export function kvVectorCache(namespace: KvNamespaceLike, options: KvVectorCacheOptions = {}): VectorCache {
  const { prefix, chunkBytes, expirationTtl } = mergeOptions(
    { prefix: 'loopctl:', chunkBytes: 20 * 1024 * 1024 },
    options,
  );
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1) {
    throw new RangeError(`chunkBytes must be a positive integer, got ${chunkBytes}`);
  }
  const putOptions = expirationTtl !== undefined ? { expirationTtl } : undefined;
  const put = (key: string, value: ArrayBuffer): Promise<void> =>
    putOptions ? namespace.put(key, value, putOptions) : namespace.put(key, value);

  return {
    async get(key) {
      const head = await namespace.get(await kvKey(prefix, key), 'arrayBuffer');
      if (!head) return undefined;
      const bytes = new Uint8Array(head);
      if (!hasMagic(bytes)) return undefined;
      if (bytes[4] === KIND_INLINE) return bytes.subarray(INLINE_HEADER);
      const manifest = readManifest(bytes);
      if (!manifest) return undefined;

      const base = await kvKey(prefix, key);
      const parts = await Promise.all(
        Array.from({ length: manifest.chunks }, (_, i) => namespace.get(chunkKey(base, i), 'arrayBuffer')),
      );
      let total = 0;
      for (const part of parts) {
        if (!part) return undefined;
        total += part.byteLength;
      }
      if (total !== manifest.length) return undefined;
      const out = new Uint8Array(total);
      let at = 0;
      for (const part of parts as ArrayBuffer[]) {
        out.set(new Uint8Array(part), at);
        at += part.byteLength;
      }
      return checksumBytes(out) === manifest.checksum ? out : undefined;
    },

    async set(key, value) {
      const mainKey = await kvKey(prefix, key);
      const previous = await namespace.get(mainKey, 'arrayBuffer');
      const staleChunks = previous ? (readManifest(new Uint8Array(previous))?.chunks ?? 0) : 0;
      let chunks = 0;
      if (value.byteLength + INLINE_HEADER <= chunkBytes) {
        const inline = new Uint8Array(INLINE_HEADER + value.byteLength);
        inline.set(MAGIC, 0);
        inline[4] = KIND_INLINE;
        inline.set(value, INLINE_HEADER);
        await put(mainKey, inline.buffer);
      } else {
        chunks = Math.ceil(value.byteLength / chunkBytes);
        // Chunks first, manifest last: a reader never sees a manifest for chunks not yet
        // written (under eventual consistency it may see stale chunks; the checksum refuses them).
        await Promise.all(
          Array.from({ length: chunks }, (_, i) => {
            const part = new Uint8Array(Math.min(chunkBytes, value.byteLength - i * chunkBytes));
            part.set(value.subarray(i * chunkBytes, i * chunkBytes + part.byteLength));
            return put(chunkKey(mainKey, i), part.buffer);
          }),
        );
        await put(mainKey, writeManifest(chunks, value.byteLength, checksumBytes(value)));
      }
      // Chunks an earlier, longer value left behind.
      const stale = Array.from({ length: Math.max(0, staleChunks - chunks) }, (_, i) => chunks + i);
      await Promise.all(stale.map((i) => namespace.delete(chunkKey(mainKey, i))));
    },

    async delete(key) {
      const mainKey = await kvKey(prefix, key);
      const head = await namespace.get(mainKey, 'arrayBuffer');
      const manifest = head ? readManifest(new Uint8Array(head)) : undefined;
      await namespace.delete(mainKey);
      if (manifest) {
        await Promise.all(Array.from({ length: manifest.chunks }, (_, i) => namespace.delete(chunkKey(mainKey, i))));
      }
    },
  };
}

// KV keys are at most 512 bytes; a longer one is replaced by its SHA-256 rather than rejected
// (a namespace is shared by every request, so no chosen key may reach another's).
async function kvKey(prefix: string, key: string): Promise<string> {
  const full = prefix + key;
  if (new TextEncoder().encode(full).byteLength + CHUNK_SUFFIX_ROOM <= MAX_KEY_BYTES) return full;
  return `${prefix}#${await digestHex(['loopctl/kv-key/v1', key])}`;
}

function chunkKey(mainKey: string, index: number): string {
  return `${mainKey}#chunk${index}`;
}

function hasMagic(bytes: Uint8Array): boolean {
  return bytes.byteLength >= INLINE_HEADER && MAGIC.every((byte, i) => bytes[i] === byte);
}

function writeManifest(chunks: number, length: number, checksum: number): ArrayBuffer {
  const bytes = new Uint8Array(MANIFEST_BYTES);
  bytes.set(MAGIC, 0);
  bytes[4] = KIND_MANIFEST;
  const view = new DataView(bytes.buffer);
  view.setUint32(8, chunks, true);
  view.setUint32(12, length, true);
  view.setUint32(16, checksum, true);
  return bytes.buffer;
}

function readManifest(bytes: Uint8Array): { chunks: number; length: number; checksum: number } | undefined {
  if (!hasMagic(bytes) || bytes[4] !== KIND_MANIFEST || bytes.byteLength !== MANIFEST_BYTES) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks = view.getUint32(8, true);
  const length = view.getUint32(12, true);
  if (chunks === 0) return undefined;
  return { chunks, length, checksum: view.getUint32(16, true) };
}
