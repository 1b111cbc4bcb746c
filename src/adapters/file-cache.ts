import type { VectorCache } from '../embed/vector-cache.js';
import { hashStrings } from '../hash.js';

/** Options for {@link fileVectorCache}. */
export interface FileVectorCacheOptions {
  /** Directory holding one file per entry. Created on first write. */
  directory: string;
}

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
  const fs = import('node:fs/promises');
  const fileFor = (key: string) => `${options.directory.replace(/\/+$/, '')}/${safeName(key)}.bin`;
  return {
    async get(key) {
      try {
        return new Uint8Array(await (await fs).readFile(fileFor(key)));
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
