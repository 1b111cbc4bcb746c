/**
 * The file-system interface the file tools run on, and the path rules every backend shares.
 * Web-standard only: the Node and Deno backends live in their own files so nothing here pulls
 * in `node:` modules or needs `Deno`.
 */

/** What `stat` reports. Symbolic links are followed (after the containment check). */
export interface FileStat {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  /** Size in bytes (0 for a directory). */
  readonly size: number;
}

/** What a directory entry is. Links are reported as `symlink`, not followed. */
export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

/** One entry of a directory listing. */
export interface DirEntry {
  readonly name: string;
  readonly kind: EntryKind;
}

/**
 * A small async file system rooted at a directory the caller chose. Every path is relative to
 * that root (`src/main.ts`, `''` for the root itself) and cannot leave it: `..` past the root,
 * absolute paths, NUL bytes and symbolic links pointing outside fail with a
 * {@link FileSystemError} whose code is `escapes-root`, before anything is read or written.
 *
 * Backends: {@link memoryFileSystem}, {@link opfsFileSystem} (browsers), `nodeFileSystem`
 * (`loopctl/tools/node`) and `denoFileSystem` (`loopctl/tools/deno`).
 *
 * @example
 * const fs: FileSystem = memoryFileSystem({ 'notes.txt': 'hello' })
 * await fs.mkdir('docs/drafts')
 * await fs.writeFile('docs/drafts/a.md', '# A')
 * new TextDecoder().decode(await fs.readFile('notes.txt')) // 'hello'
 * (await fs.list('docs')).map((e) => e.name) // ['drafts']
 */
export interface FileSystem {
  /** Which backend this is (`memory`, `opfs`, `node`, `deno`), for messages and tests. */
  readonly kind: string;
  /** A file's bytes. */
  readFile(path: string): Promise<Uint8Array>;
  /** Create or replace a file. The parent directory must exist (see `mkdir`). */
  writeFile(path: string, data: Uint8Array | string): Promise<void>;
  /** Size and type of a file or directory. */
  stat(path: string): Promise<FileStat>;
  /** A directory's entries, in no particular order. */
  list(path: string): Promise<DirEntry[]>;
  /** Create a directory and any missing parents; an existing directory is fine. */
  mkdir(path: string): Promise<void>;
}

/** Why a file-system call failed. */
export type FileErrorCode =
  | 'escapes-root'
  | 'invalid-path'
  | 'not-found'
  | 'not-a-file'
  | 'not-a-directory'
  | 'already-exists'
  | 'permission-denied'
  | 'io';

const MESSAGES: Record<FileErrorCode, string> = {
  'escapes-root': 'path escapes the root (use a path relative to the root, e.g. src/main.ts)',
  'invalid-path': 'invalid path',
  'not-found': 'no such file or directory',
  'not-a-file': 'is a directory, not a file',
  'not-a-directory': 'is not a directory',
  'already-exists': 'already exists',
  'permission-denied': 'permission denied',
  io: 'input/output error',
};

/**
 * A file-system failure with a stable `code`. Its message names the path and says what is
 * wrong, so a tool can pass it straight to the model.
 *
 * @example
 * try { await fs.readFile('../secrets') } catch (error) {
 *   if (error instanceof FileSystemError && error.code === 'escapes-root') … // never read
 * }
 */
export class FileSystemError extends Error {
  override readonly name = 'FileSystemError';
  readonly code: FileErrorCode;
  readonly path: string;

  constructor(code: FileErrorCode, path: string, detail?: string) {
    super(`${displayPath(path)}: ${detail ?? MESSAGES[code]}`);
    this.code = code;
    this.path = path;
  }
}

/**
 * True when `error` is a {@link FileSystemError}, optionally of one code.
 *
 * @example
 * const missing = await fs.stat('cache.json').catch((e) => isFileSystemError(e, 'not-found'))
 */
export function isFileSystemError(error: unknown, code?: FileErrorCode): error is FileSystemError {
  return error instanceof FileSystemError && (code === undefined || error.code === code);
}

/**
 * The segments of a root-relative path, `.` and `..` resolved lexically. Throws
 * `escapes-root` for an absolute path (`/etc/passwd`, `C:\x`, `\\host\share`) or one whose
 * `..` climbs past the root (`a/../../x`), and `invalid-path` for a NUL byte. Backslashes
 * count as separators everywhere, so `..\x` cannot slip through on any platform.
 *
 * @example
 * pathSegments('src/./a/../main.ts') // ['src', 'main.ts']
 * pathSegments('') // [] (the root)
 * pathSegments('../x') // throws FileSystemError 'escapes-root'
 */
export function pathSegments(path: string): string[] {
  if (typeof path !== 'string') throw new FileSystemError('invalid-path', String(path), 'path must be a string');
  if (path.includes('\0')) throw new FileSystemError('invalid-path', path, 'invalid path: it contains a NUL byte');
  const unified = path.replace(/\\/g, '/');
  if (unified.startsWith('/') || /^[a-zA-Z]:/.test(unified)) throw new FileSystemError('escapes-root', path);
  const out: string[] = [];
  for (const part of unified.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) throw new FileSystemError('escapes-root', path);
      out.pop();
    } else out.push(part);
  }
  return out;
}

/**
 * The canonical form of a root-relative path (`''` for the root), with the checks of
 * {@link pathSegments}.
 *
 * @example
 * normalizePath('./docs//guide.md') // 'docs/guide.md'
 */
export function normalizePath(path: string): string {
  return pathSegments(path).join('/');
}

/** The parent of a canonical path (`''` for a top-level name or the root). */
export function parentPath(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? '' : path.slice(0, cut);
}

/** Join a canonical directory path and a name. */
export function joinPath(directory: string, name: string): string {
  return directory === '' ? name : `${directory}/${name}`;
}

/** How a path reads in a message: the root is `.`, control characters are escaped. */
export function displayPath(path: string): string {
  if (path === '') return '.';
  return /[\u0000-\u001f]/.test(path) ? JSON.stringify(path) : path;
}

/** `stat`, or undefined when the path does not exist (other failures still throw). */
export async function statOrUndefined(fs: FileSystem, path: string): Promise<FileStat | undefined> {
  try {
    return await fs.stat(path);
  } catch (error) {
    if (isFileSystemError(error, 'not-found')) return undefined;
    throw error;
  }
}

/** Bytes of a string or byte array (strings are UTF-8 encoded). */
export function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? new TextEncoder().encode(data) : data;
}
