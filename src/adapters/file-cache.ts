import type { VectorCache } from '../embed/vector-cache.js';
import { hashStrings } from '../hash.js';
import { mergeOptions } from '../options.js';

/** Options for {@link fileVectorCache}. */
export interface FileVectorCacheOptions {
  /** Directory holding one file per entry. Created on first write. */
  directory: string;
  /**
   * Most entries kept; each write past it removes the least recently used (by modification
   * time, which reads renew). Default 512. Tool lists can come from clients (the proxy), so
   * the folder must not keep every list ever sent.
   */
  maxEntries?: number;
  /** Most bytes kept, all entries together, removed the same way. Default 1 GiB. */
  maxBytes?: number;
}

const DEFAULTS = { maxEntries: 512, maxBytes: 1024 * 1024 * 1024 };
const ENTRY = /\.bin$/;

/**
 * A {@link VectorCache} in a directory, for Node and Deno (`node:fs/promises`, imported
 * lazily). Keys become hashed file names; writes go to a temporary file first and are
 * renamed into place, so a crash never leaves a half-written entry behind.
 *
 * @example
 * const selector = new EmbeddingSelector(embedder, {
 *   cache: fileVectorCache({ directory: 'node_modules/.cache/loopctl' }),
 * })
 */
export function fileVectorCache(options: FileVectorCacheOptions): VectorCache {
  const { directory, maxEntries, maxBytes } = mergeOptions(DEFAULTS, options);
  const fs = import('node:fs/promises');
  const folder = directory.replace(/\/+$/, '');
  const fileFor = (key: string) => `${folder}/${safeName(key)}.bin`;
  // Oldest first, until both bounds hold. Another process may prune the same folder: a file
  // already gone is fine.
  const prune = async (): Promise<void> => {
    const { readdir, stat, rm } = await fs;
    const names = (await readdir(folder)).filter((name) => ENTRY.test(name));
    const entries = await Promise.all(
      names.map(async (name) => {
        const info = await stat(`${folder}/${name}`).catch(() => undefined);
        return { name, size: info?.size ?? 0, at: info?.mtimeMs ?? 0 };
      }),
    );
    entries.sort((a, b) => a.at - b.at);
    let count = entries.length;
    let bytes = entries.reduce((sum, entry) => sum + entry.size, 0);
    for (const entry of entries) {
      if (count <= maxEntries && bytes <= maxBytes) break;
      await rm(`${folder}/${entry.name}`, { force: true });
      count--;
      bytes -= entry.size;
    }
  };
  return {
    async get(key) {
      try {
        const { readFile, utimes } = await fs;
        const file = fileFor(key);
        const bytes = new Uint8Array(await readFile(file));
        const now = new Date();
        await utimes(file, now, now).catch(() => {}); // read: most recently used
        return bytes;
      } catch {
        return undefined;
      }
    },
    async set(key, value) {
      const { mkdir, writeFile, rename } = await fs;
      await mkdir(options.directory, { recursive: true });
      const file = fileFor(key);
      const temporary = `${file}.${Math.random().toString(36).slice(2)}.tmp`;
      await writeFile(temporary, value);
      await rename(temporary, file);
      await prune();
    },
    async delete(key) {
      await (await fs).rm(fileFor(key), { force: true });
    },
  };
}

// File names from arbitrary keys: keep readable characters, bound the length, and add a hash
// so distinct keys never share a file.
function safeName(key: string): string {
  return `${key.replace(/[^a-zA-Z0-9._-]+/g, '_').slice(0, 80)}-${hashStrings([key])}`;
}
