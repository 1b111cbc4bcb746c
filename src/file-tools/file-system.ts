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
 * Paths past {@link FILE_PATH_LIMITS} (4,096 characters, 256 segments, 255-byte names) fail
 * with `invalid-path`, also before storage is touched.
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
 * The path limits every backend enforces before it touches storage, so a model cannot make a
 * call slow (one host check per folder level), build absurdly deep trees, or get a 100 kB
 * path echoed back in an error. Disk backends may refuse shorter paths still: the host's own
 * limit (Linux `PATH_MAX` is 4,096 bytes) counts the root's location too.
 *
 * - `maxChars`: characters of the path as given (before `.` and `..` are resolved): 4,096.
 * - `maxSegments`: folders plus the final name once resolved (`a/b/c.txt` is 3): 256.
 * - `maxNameBytes`: UTF-8 bytes of any one folder or file name: 255 (ext4, APFS, NTFS alike).
 *
 * @example
 * FILE_PATH_LIMITS.maxSegments // 256
 * pathSegments('a/'.repeat(300) + 'x.txt') // throws FileSystemError 'invalid-path'
 */
export const FILE_PATH_LIMITS = {
  maxChars: 4096,
  maxSegments: 256,
  maxNameBytes: 255,
} as const;

/** How many characters of a path an error message shows (the middle is elided). */
export const SHOWN_PATH_CHARS = 200;

const utf8 = new TextEncoder();

/**
 * The segments of a root-relative path, `.` and `..` resolved lexically. Throws
 * `escapes-root` for an absolute path (`/etc/passwd`, `C:\x`, `\\host\share`) or one whose
 * `..` climbs past the root (`a/../../x`), and `invalid-path` for a NUL byte or a path past
 * {@link FILE_PATH_LIMITS}. Backslashes count as separators everywhere, so `..\x` cannot slip
 * through on any platform. Its cost is linear in the path's length, which the limits bound.
 *
 * @example
 * pathSegments('src/./a/../main.ts') // ['src', 'main.ts']
 * pathSegments('') // [] (the root)
 * pathSegments('../x') // throws FileSystemError 'escapes-root'
 */
export function pathSegments(path: string): string[] {
  const unified = checkPathText(path);
  const out: string[] = [];
  for (const part of unified.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) throw new FileSystemError('escapes-root', path);
      out.pop();
    } else {
      if (nameTooLong(part)) {
        throw new FileSystemError(
          'invalid-path',
          path,
          `a name in the path is over the limit of ${FILE_PATH_LIMITS.maxNameBytes} bytes: ${clipMiddle(displayPath(part), 40)}`,
        );
      }
      out.push(part);
    }
  }
  if (out.length > FILE_PATH_LIMITS.maxSegments) {
    throw new FileSystemError(
      'invalid-path',
      path,
      `path is ${out.length} folders and names deep, over the limit of ${FILE_PATH_LIMITS.maxSegments}`,
    );
  }
  return out;
}

/**
 * The checks on a path's text alone, before it is split: a string, at most
 * `FILE_PATH_LIMITS.maxChars` characters, no NUL byte, not absolute (`/x`, `C:`, `\\host`).
 * Returns the text with backslashes as `/`. Glob patterns get these checks too (their
 * segments are patterns, not names, so the name limit does not apply to them).
 *
 * @example
 * checkPathText('src\\main.ts') // 'src/main.ts'
 * checkPathText('/etc/passwd') // throws FileSystemError 'escapes-root'
 */
export function checkPathText(path: string): string {
  if (typeof path !== 'string') throw new FileSystemError('invalid-path', String(path), 'path must be a string');
  if (path.length > FILE_PATH_LIMITS.maxChars) {
    throw new FileSystemError(
      'invalid-path',
      path,
      `path is ${path.length} characters long, over the limit of ${FILE_PATH_LIMITS.maxChars}`,
    );
  }
  if (path.includes('\0')) throw new FileSystemError('invalid-path', path, 'invalid path: it contains a NUL byte');
  const unified = path.replace(/\\/g, '/');
  if (unified.startsWith('/') || /^[a-zA-Z]:/.test(unified)) throw new FileSystemError('escapes-root', path);
  return unified;
}

/**
 * Whether a canonical path found on storage (a walk's child) is within {@link FILE_PATH_LIMITS},
 * so that the calls naming it will be accepted.
 *
 * @example
 * withinPathLimits('src/main.ts') // true
 */
export function withinPathLimits(canonical: string): boolean {
  if (canonical.length > FILE_PATH_LIMITS.maxChars) return false;
  let segments = 1;
  for (let i = canonical.indexOf('/'); i >= 0; i = canonical.indexOf('/', i + 1)) segments++;
  return segments <= FILE_PATH_LIMITS.maxSegments && !nameTooLong(canonical.slice(canonical.lastIndexOf('/') + 1));
}

function nameTooLong(name: string): boolean {
  // A UTF-16 unit is at most 3 UTF-8 bytes: short names need no encoding.
  if (name.length * 3 <= FILE_PATH_LIMITS.maxNameBytes) return false;
  return name.length > FILE_PATH_LIMITS.maxNameBytes || utf8.encode(name).length > FILE_PATH_LIMITS.maxNameBytes;
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

/**
 * How a path reads in a message: the root is `.`, control characters are escaped, and a path
 * over {@link SHOWN_PATH_CHARS} characters keeps its start and end around an ellipsis, so an
 * error never hands the model back a huge argument.
 *
 * @example
 * displayPath('') // '.'
 * displayPath('a/'.repeat(5000) + 'x.txt') // 'a/a/…/a/x.txt' (200 characters)
 */
export function displayPath(path: string): string {
  if (path === '') return '.';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
  return clipMiddle(/[\u0000-\u001f]/.test(path) ? JSON.stringify(path) : path, SHOWN_PATH_CHARS);
}

/**
 * `text` cut to at most `max` characters by replacing its middle with `…` (never splitting a
 * surrogate pair); shorter text is returned as is.
 *
 * @example
 * clipMiddle('abcdefghij', 5) // 'ab…ij'
 */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - 1);
  let headEnd = Math.ceil(keep / 2);
  let tailStart = text.length - (keep - headEnd);
  if (isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd--;
  if (isLowSurrogate(text.charCodeAt(tailStart))) tailStart++;
  return `${text.slice(0, headEnd)}…${text.slice(tailStart)}`;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code < 0xdc00;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code < 0xe000;

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
