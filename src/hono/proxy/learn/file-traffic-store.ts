/**
 * Learned traffic in files on Node: the folder store over `node:fs` (see
 * `folder-traffic-store.ts`; Deno's entry passes Deno's file API to the same store).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { type FolderFiles, folderTrafficStore } from './folder-traffic-store.js';
import type { LearnBounds } from './tenant-state.js';
import type { LearnedTrafficStore } from './traffic-store.js';

const NODE_FILES: FolderFiles = {
  async readText(path) {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return undefined;
      throw error;
    }
  },
  writeText: (path, text) => writeFile(path, text),
  rename,
  makeFolder: async (path) => {
    await mkdir(path, { recursive: true });
  },
};

/**
 * A store keeping each tenant in `<folder>/<tenant>.json`.
 *
 * @example
 * createApp({ registry, proxy: { learn: fileTrafficStore('.loopctl/learned') } })
 */
export function fileTrafficStore(folder: string, bounds: Partial<LearnBounds> = {}): LearnedTrafficStore {
  return folderTrafficStore(folder, NODE_FILES, bounds);
}
