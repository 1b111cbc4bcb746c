import type { DirEntry, FileErrorCode, FileSystem } from './file-system.js';
import type { HostOps } from './host-file-system.js';
import { rootedHostFileSystem } from './host-file-system.js';

// Imported on first use, so bundling this file for a browser does not fail at load time.
type NodeFs = typeof import('node:fs/promises');
let modules: Promise<{ fs: NodeFs }> | undefined;
const load = () => (modules ??= import('node:fs/promises').then((fs) => ({ fs })));

// `node:path` would need the lazy import too; the separator is all this backend needs of it.
const SEPARATOR = typeof process !== 'undefined' && process.platform === 'win32' ? '\\' : '/';

const CODES: Readonly<Record<string, FileErrorCode>> = {
  ENOENT: 'not-found',
  ENOTDIR: 'not-a-directory',
  EISDIR: 'not-a-file',
  EEXIST: 'already-exists',
  ELOOP: 'invalid-path',
  ENAMETOOLONG: 'invalid-path',
  EINVAL: 'invalid-path',
  EACCES: 'permission-denied',
  EPERM: 'permission-denied',
};

/**
 * A {@link FileSystem} on disk under `rootDir` (Node ≥ 20, and Bun), via `node:fs/promises`,
 * imported lazily. Paths are relative to the root and confined to it: `..` past the root,
 * absolute paths and symbolic links whose real location is outside it fail with
 * "path escapes the root" before anything is read or written. The root must exist.
 *
 * @example
 * import { registerFileTools } from 'loopctl/tools'
 * import { nodeFileSystem } from 'loopctl/tools/node'
 * registerFileTools(registry, nodeFileSystem(process.cwd()), { readOnly: true })
 */
export function nodeFileSystem(rootDir: string): FileSystem {
  return rootedHostFileSystem(nodeOps(rootDir));
}

function nodeOps(rootDir: string): HostOps {
  return {
    kind: 'node',
    root: rootDir,
    separator: SEPARATOR,
    join: (base, names) =>
      names.length === 0 ? base : (base.endsWith(SEPARATOR) ? base : base + SEPARATOR) + names.join(SEPARATOR),
    realpath: async (path) => (await load()).fs.realpath(path),
    lexists: async (path) => {
      try {
        await (await load()).fs.lstat(path);
        return true;
      } catch {
        return false;
      }
    },
    readFile: async (path) => new Uint8Array(await (await load()).fs.readFile(path)),
    writeFile: async (path, data) => (await load()).fs.writeFile(path, data),
    stat: async (path) => {
      const info = await (await load()).fs.stat(path);
      return { isFile: info.isFile(), isDirectory: info.isDirectory(), size: info.isFile() ? info.size : 0 };
    },
    readDir: async (path) => {
      const entries = await (await load()).fs.readdir(path, { withFileTypes: true });
      return entries.map((entry): DirEntry => ({ name: entry.name, kind: kindOf(entry) }));
    },
    mkdir: async (path) => {
      await (await load()).fs.mkdir(path, { recursive: true });
    },
    errorCode: (error) => {
      const code = (error as { code?: unknown } | null)?.code;
      return typeof code === 'string' ? CODES[code] : undefined;
    },
  };
}

function kindOf(entry: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): DirEntry['kind'] {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  return 'other';
}
