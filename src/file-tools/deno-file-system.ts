import type { DirEntry, FileErrorCode, FileSystem } from './file-system.js';
import type { HostOps } from './host-file-system.js';
import { rootedHostFileSystem } from './host-file-system.js';

/** The slice of the `Deno` namespace this backend uses (typed here: core builds lack Deno's types). */
interface DenoFileInfo {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly isSymlink: boolean;
  readonly size: number;
}
interface DenoApi {
  readonly build: { readonly os: string };
  realPath(path: string | URL): Promise<string>;
  lstat(path: string): Promise<DenoFileInfo>;
  stat(path: string): Promise<DenoFileInfo>;
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, data: Uint8Array): Promise<void>;
  readDir(path: string): AsyncIterable<{ readonly name: string } & Omit<DenoFileInfo, 'size'>>;
  mkdir(path: string, options: { recursive: boolean }): Promise<void>;
}

// Deno's error classes are named after what went wrong; `name` survives bundling and realms.
const CODES: Readonly<Record<string, FileErrorCode>> = {
  NotFound: 'not-found',
  NotADirectory: 'not-a-directory',
  IsADirectory: 'not-a-file',
  AlreadyExists: 'already-exists',
  FilesystemLoop: 'invalid-path',
  InvalidData: 'invalid-path',
  PermissionDenied: 'permission-denied',
  // A missing --allow-read/--allow-write flag.
  NotCapable: 'permission-denied',
};

/**
 * A {@link FileSystem} on disk under `rootDir`, via `Deno.*` (needs `--allow-read`, and
 * `--allow-write` for Write and Edit). Paths are relative to the root and confined to it:
 * `..` past the root, absolute paths and symbolic links whose real location is outside it
 * fail with "path escapes the root" before anything is read or written. The root must exist.
 *
 * @example
 * import { registerFileTools } from 'loopctl/tools'
 * import { denoFileSystem } from 'loopctl/tools/deno'
 * registerFileTools(registry, denoFileSystem(Deno.cwd()))
 */
export function denoFileSystem(rootDir: string | URL): FileSystem {
  return rootedHostFileSystem(denoOps(rootDir));
}

function deno(): DenoApi {
  const api = (globalThis as { Deno?: DenoApi }).Deno;
  if (!api) throw new Error('denoFileSystem needs the Deno runtime (globalThis.Deno is missing)');
  return api;
}

function denoOps(rootDir: string | URL): HostOps {
  const separator = deno().build.os === 'windows' ? '\\' : '/';
  return {
    kind: 'deno',
    root: rootDir,
    separator,
    join: (base, names) =>
      names.length === 0 ? base : (base.endsWith(separator) ? base : base + separator) + names.join(separator),
    realpath: (path) => deno().realPath(path),
    lexists: async (path) => {
      try {
        await deno().lstat(path);
        return true;
      } catch {
        return false;
      }
    },
    readFile: (path) => deno().readFile(path),
    writeFile: (path, data) => deno().writeFile(path, data),
    stat: async (path) => {
      const info = await deno().stat(path);
      return { isFile: info.isFile, isDirectory: info.isDirectory, size: info.isFile ? info.size : 0 };
    },
    readDir: async (path) => {
      const entries: DirEntry[] = [];
      for await (const entry of deno().readDir(path)) entries.push({ name: entry.name, kind: kindOf(entry) });
      return entries;
    },
    mkdir: (path) => deno().mkdir(path, { recursive: true }),
    errorCode: (error) => {
      const name = (error as { name?: unknown } | null)?.name;
      return typeof name === 'string' ? CODES[name] : undefined;
    },
  };
}

function kindOf(entry: Omit<DenoFileInfo, 'size'>): DirEntry['kind'] {
  if (entry.isSymlink) return 'symlink';
  if (entry.isFile) return 'file';
  if (entry.isDirectory) return 'directory';
  return 'other';
}
