import type { FileSystem } from './file-system.js';
import { FILE_PATH_LIMITS, FileSystemError, joinPath, normalizePath, withinPathLimits } from './file-system.js';

/** Options for {@link walkFiles}. */
export interface WalkOptions {
  /** Directory names not descended into. */
  readonly ignoreDirs: readonly string[];
  /** Files yielded before the walk stops (the result's `truncated` says so). */
  readonly maxFiles: number;
  readonly signal?: AbortSignal;
}

/** What a walk found: root-relative file paths in sorted order, and whether it stopped early. */
export interface WalkResult {
  /** The canonical start path. */
  readonly start: string;
  /** The start was a file, not a directory. */
  readonly single: boolean;
  readonly files: string[];
  readonly truncated: boolean;
  /** Entries not visited because their paths are past `FILE_PATH_LIMITS` (no call could name them). */
  readonly beyondLimits: number;
}

/**
 * Every file under `start` (or `start` itself when it is a file), depth first in code-point
 * order, so results are the same on every backend. Symbolic links are listed by the backend
 * but not followed: a walk never leaves the tree it started in, and link cycles cannot loop
 * it. Directories named in `ignoreDirs` are skipped (the start itself may be one), and so are
 * entries whose paths are past `FILE_PATH_LIMITS` (a tree made deeper by other means), counted
 * in `beyondLimits`.
 *
 * @example
 * const { files } = await walkFiles(fs, 'src', { ignoreDirs: ['node_modules'], maxFiles: 1000 })
 */
export async function walkFiles(fs: FileSystem, start: string, options: WalkOptions): Promise<WalkResult> {
  const canonical = normalizePath(start);
  const info = await fs.stat(canonical);
  if (info.isFile) return { start: canonical, single: true, files: [canonical], truncated: false, beyondLimits: 0 };
  if (!info.isDirectory) throw new FileSystemError('not-a-directory', canonical, 'is neither a file nor a directory');

  const ignored = new Set(options.ignoreDirs);
  const files: string[] = [];
  let beyondLimits = 0;
  const pending: string[] = [canonical];
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const directory = pending.pop() as string;
    const entries = (await fs.list(directory)).sort((a, b) => compare(a.name, b.name));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      const path = joinPath(directory, entry.name);
      if ((entry.kind === 'file' || entry.kind === 'directory') && !withinPathLimits(path)) beyondLimits++;
      else if (entry.kind === 'file') {
        if (files.length >= options.maxFiles)
          return { start: canonical, single: false, files: files.sort(compare), truncated: true, beyondLimits };
        files.push(path);
      } else if (entry.kind === 'directory' && !ignored.has(entry.name)) subdirectories.push(path);
    }
    // Reversed onto the stack, so the first subdirectory is walked next.
    pending.push(...subdirectories.reverse());
  }
  return { start: canonical, single: false, files: files.sort(compare), truncated: false, beyondLimits };
}

/**
 * The ignored directory names a glob does not name: `node_modules/**` opts into
 * `node_modules`, so asking for it explicitly is never answered with "no files".
 */
export function ignoredFor(ignoreDirs: readonly string[], glob: string | undefined): string[] {
  if (glob === undefined) return [...ignoreDirs];
  const segments = new Set(glob.split('/'));
  return ignoreDirs.filter((name) => !segments.has(name));
}

/** Code-point order: the same on every runtime and locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `path` relative to the directory `base` (both canonical, `path` under `base`). */
export function relativeTo(base: string, path: string): string {
  return base === '' ? path : path.slice(base.length + 1);
}

/** The note Grep and Glob add when a walk passed over entries beyond the path limits. */
export function beyondLimitsNote(count: number): string {
  const { maxSegments, maxChars } = FILE_PATH_LIMITS;
  return `${count === 1 ? '1 entry' : `${count} entries`} not visited: deeper than ${maxSegments} levels or longer than ${maxChars} characters`;
}
