import type { DirEntry, FileErrorCode, FileStat, FileSystem } from './file-system.js';
import { FileSystemError, normalizePath, pathSegments, toBytes } from './file-system.js';

/**
 * The primitives a disk backend (Node, Deno) supplies. Paths here are absolute host paths;
 * {@link rootedHostFileSystem} is what turns root-relative paths into them safely.
 */
export interface HostOps {
  readonly kind: string;
  /** The root directory as the caller gave it. */
  readonly root: string | URL;
  /** The host's path separator (`/`, or `\` on Windows). */
  readonly separator: string;
  join(base: string, names: readonly string[]): string;
  /** Canonical absolute path, every symbolic link resolved; throws when it does not exist. */
  realpath(path: string | URL): Promise<string>;
  /** Whether anything (a dangling link included) exists at the path, links not followed. */
  lexists(path: string): Promise<boolean>;
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, data: Uint8Array): Promise<void>;
  stat(path: string): Promise<FileStat>;
  readDir(path: string): Promise<DirEntry[]>;
  /** Recursive mkdir. */
  mkdir(path: string): Promise<void>;
  /** The {@link FileErrorCode} of a host error, when it maps to one. */
  errorCode(error: unknown): FileErrorCode | undefined;
}

/**
 * A {@link FileSystem} over host primitives, confined to `ops.root`. Every call resolves its
 * path with `realpath` — for a path that does not exist yet, the deepest existing ancestor —
 * and refuses anything whose real location is outside the real root, so a symbolic link
 * cannot carry a read or a write out. Paths past `FILE_PATH_LIMITS` are refused before any
 * host call, and the check takes a handful of host calls whatever the depth. A dangling link is refused too: its target cannot be
 * checked, and writing through it would create a file wherever it points.
 *
 * What it cannot stop: another process swapping a directory for a link between the check
 * and the operation, and hard links (they are not distinguishable from ordinary files).
 *
 * @example
 * // What nodeFileSystem and denoFileSystem return; a new host only supplies its primitives.
 * const fs = rootedHostFileSystem({ kind: 'bun', root: '/srv/workspace', separator: '/', join, realpath, … })
 */
export function rootedHostFileSystem(ops: HostOps): FileSystem {
  let rootPromise: Promise<string> | undefined;
  const realRoot = (): Promise<string> => {
    rootPromise ??= ops.realpath(ops.root).catch((error: unknown) => {
      rootPromise = undefined; // a root created later should work on the next call
      throw new FileSystemError(
        ops.errorCode(error) ?? 'io',
        '',
        `the root directory ${String(ops.root)} is not usable (${hostCode(error)})`,
      );
    });
    return rootPromise;
  };
  const inside = (real: string, root: string): boolean =>
    real === root || real.startsWith(root.endsWith(ops.separator) ? root : root + ops.separator);

  /**
   * The host path for a root-relative path, after the containment check. Its cost does not
   * grow with depth: one `realpath` of the whole path; if that is missing, of its parent; if
   * that is missing too, a binary search for the deepest existing ancestor (existence is
   * monotonic along a path), so at most 2 + log2(256) `realpath` calls and one `lstat`.
   */
  const resolve = async (path: string): Promise<string> => {
    const segments = pathSegments(path);
    const root = await realRoot();
    /** The real location of the first `depth` segments, or undefined when it does not exist. */
    const realAt = async (depth: number): Promise<string | undefined> => {
      if (depth === 0) return root;
      try {
        return await ops.realpath(ops.join(root, segments.slice(0, depth)));
      } catch (error) {
        if (ops.errorCode(error) !== 'not-found') throw hostError(ops, error, path);
        return undefined;
      }
    };
    let depth = segments.length;
    let real = await realAt(depth);
    if (real === undefined) {
      // Invariant: `found` exists (real location `real`), `missing` does not.
      let missing = depth;
      let found = depth - 1;
      real = await realAt(found);
      if (real === undefined) {
        missing = found;
        found = 0;
        real = root;
        while (missing - found > 1) {
          const middle = (found + missing) >>> 1;
          const at = await realAt(middle);
          if (at === undefined) missing = middle;
          else [found, real] = [middle, at];
        }
      }
      // The first missing level may be a link to a missing target: its target cannot be
      // checked, and writing through it would create a file wherever it points.
      if (await ops.lexists(ops.join(root, segments.slice(0, missing)))) {
        throw new FileSystemError(
          'escapes-root',
          path,
          'path escapes the root or cannot be checked: it goes through a symbolic link to a missing target',
        );
      }
      depth = found;
    }
    if (!inside(real, root)) throw new FileSystemError('escapes-root', path);
    return ops.join(real, segments.slice(depth));
  };

  /** Run a host call on the resolved path, mapping host errors to {@link FileSystemError}. */
  const at = async <T>(path: string, run: (hostPath: string) => Promise<T>): Promise<T> => {
    const hostPath = await resolve(path);
    try {
      return await run(hostPath);
    } catch (error) {
      throw hostError(ops, error, path);
    }
  };

  return {
    kind: ops.kind,
    readFile: (path) => at(path, (p) => ops.readFile(p)),
    writeFile: async (path, data) => {
      if (pathSegments(path).length === 0) throw new FileSystemError('not-a-file', '');
      return at(path, (p) => ops.writeFile(p, toBytes(data)));
    },
    stat: (path) => at(path, (p) => ops.stat(p)),
    list: (path) => at(path, (p) => ops.readDir(p)),
    mkdir: (path) => at(path, (p) => ops.mkdir(p)),
  };
}

function hostError(ops: HostOps, error: unknown, path: string): FileSystemError {
  if (error instanceof FileSystemError) return error;
  const code = ops.errorCode(error);
  let canonical = path;
  try {
    canonical = normalizePath(path);
  } catch {
    // keep the path as given
  }
  return code
    ? new FileSystemError(code, canonical)
    : new FileSystemError('io', canonical, `input/output error (${hostCode(error)})`);
}

/**
 * The host's short name for an error (`EACCES`, `PermissionDenied`), never its message: host
 * messages carry absolute paths, and the model should only ever see root-relative ones.
 */
function hostCode(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  if (typeof code === 'string') return code;
  return typeof name === 'string' && name !== 'Error' ? name : 'unknown error';
}
