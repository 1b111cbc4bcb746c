import { errorMessage } from '../describe-error.js';
import type { DirEntry, FileErrorCode, FileStat, FileSystem } from './file-system.js';
import { FileSystemError, normalizePath, pathSegments, toBytes } from './file-system.js';

type DirectoryHandle = FileSystemDirectoryHandle;

/**
 * What {@link opfsFileSystem} accepts as its root: the DOM's `FileSystemDirectoryHandle` fits.
 * Declared structurally, so the published types need no DOM lib (a Node-only project that
 * imports `loopctl/tools` type-checks).
 *
 * @example
 * const root: OpfsDirectoryHandle = await navigator.storage.getDirectory()
 */
export interface OpfsDirectoryHandle {
  readonly kind: 'directory';
  readonly name: string;
  getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<OpfsDirectoryHandle>;
}

// `entries()` is in lib.dom's async-iterable extension, which this project's lib list omits.
type IterableDirectory = DirectoryHandle & {
  entries(): AsyncIterable<[string, FileSystemHandle]>;
};

/**
 * A {@link FileSystem} in the browser's Origin Private File System: storage private to the
 * origin, persistent across reloads, no permission prompt. `root` defaults to
 * `navigator.storage.getDirectory()`; pass a subdirectory handle to confine the tools further.
 * OPFS has no links and no `..`, and paths are checked before any handle is opened, so a
 * path can only name something under `root`.
 *
 * Writes use `createWritable()` where the browser has it; where it does not, a sync access
 * handle, which browsers only grant inside a dedicated worker.
 *
 * @example
 * const registry = new ToolRegistry()
 * registerFileTools(registry, opfsFileSystem())
 * // or confined to one folder:
 * const root = await navigator.storage.getDirectory()
 * registerFileTools(registry, opfsFileSystem(await root.getDirectoryHandle('workspace', { create: true })))
 */
export function opfsFileSystem(root?: OpfsDirectoryHandle | Promise<OpfsDirectoryHandle>): FileSystem {
  // A real OPFS handle (the structural type only keeps the DOM out of the published types).
  let rootHandle: Promise<DirectoryHandle> | undefined = root
    ? Promise.resolve(root as unknown as DirectoryHandle | Promise<DirectoryHandle>)
    : undefined;
  const top = (): Promise<DirectoryHandle> => {
    if (!rootHandle) {
      const storage = (globalThis as { navigator?: Navigator }).navigator?.storage;
      if (!storage?.getDirectory)
        return Promise.reject(new Error('opfsFileSystem needs navigator.storage.getDirectory() (a browser with OPFS)'));
      rootHandle = storage.getDirectory();
    }
    return rootHandle;
  };

  /** The directory at `segments`, optionally creating missing ones. */
  const directory = async (segments: readonly string[], path: string, create = false): Promise<DirectoryHandle> => {
    let handle = await top();
    // A file where a directory is expected: `mkdir` says it exists, other calls that a parent is no directory.
    const mismatch = create ? 'already-exists' : 'not-a-directory';
    for (const name of segments) handle = await opfs(path, () => handle.getDirectoryHandle(name, { create }), mismatch);
    return handle;
  };

  /** The parent directory handle and final name of a non-root path. */
  const parentOf = async (path: string): Promise<[DirectoryHandle, string]> => {
    const segments = pathSegments(path);
    const name = segments.pop();
    if (name === undefined) throw new FileSystemError('not-a-file', '');
    return [await directory(segments, path), name];
  };

  return {
    kind: 'opfs',
    async readFile(path) {
      const [parent, name] = await parentOf(path);
      const file = await opfs(path, async () => (await parent.getFileHandle(name)).getFile());
      return new Uint8Array(await file.arrayBuffer());
    },
    async writeFile(path, data) {
      const [parent, name] = await parentOf(path);
      const handle = await opfs(path, () => parent.getFileHandle(name, { create: true }));
      await opfs(path, () => writeAll(handle, toBytes(data)));
    },
    async stat(path): Promise<FileStat> {
      const segments = pathSegments(path);
      if (segments.length === 0) {
        await top();
        return { isFile: false, isDirectory: true, size: 0 };
      }
      const [parent, name] = await parentOf(path);
      try {
        const file = await opfs(path, async () => (await parent.getFileHandle(name)).getFile());
        return { isFile: true, isDirectory: false, size: file.size };
      } catch (error) {
        // getFileHandle on a directory is a type mismatch: then it is the directory.
        if (!(error instanceof FileSystemError && error.code === 'not-a-file')) throw error;
        await opfs(path, () => parent.getDirectoryHandle(name), 'not-a-directory');
        return { isFile: false, isDirectory: true, size: 0 };
      }
    },
    async list(path): Promise<DirEntry[]> {
      const handle = (await directory(pathSegments(path), path)) as IterableDirectory;
      const entries: DirEntry[] = [];
      for await (const [name, child] of handle.entries()) {
        entries.push({ name, kind: child.kind === 'file' ? 'file' : 'directory' });
      }
      return entries;
    },
    async mkdir(path) {
      await directory(pathSegments(path), path, true);
    },
  };
}

/** Replace a file's contents: `createWritable` where it exists, else a sync access handle (workers). */
async function writeAll(handle: FileSystemFileHandle, data: Uint8Array): Promise<void> {
  const writable = handle as FileSystemFileHandle & { createWritable?: () => Promise<FileSystemWritableFileStream> };
  if (typeof writable.createWritable === 'function') {
    const stream = await writable.createWritable();
    try {
      await stream.write(data as Uint8Array<ArrayBuffer>);
      await stream.close();
    } catch (error) {
      await stream.abort().catch(() => undefined);
      throw error;
    }
    return;
  }
  const syncable = handle as FileSystemFileHandle & {
    createSyncAccessHandle?: () => Promise<{
      truncate(size: number): void;
      write(data: Uint8Array, options: { at: number }): number;
      flush(): void;
      close(): void;
    }>;
  };
  if (typeof syncable.createSyncAccessHandle !== 'function') {
    throw new Error(
      'this browser cannot write OPFS files here (no createWritable; sync access handles need a dedicated worker)',
    );
  }
  const access = await syncable.createSyncAccessHandle();
  try {
    access.truncate(0);
    access.write(data, { at: 0 });
    access.flush();
  } finally {
    access.close();
  }
}

/** Run an OPFS call, turning its DOMExceptions into {@link FileSystemError}s naming `path`. */
async function opfs<T>(path: string, run: () => Promise<T>, mismatch: FileErrorCode = 'not-a-file'): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw opfsError(error, path, mismatch);
  }
}

/** `mismatch`: what a TypeMismatchError means at this step (a directory where a file was asked for, or the reverse). */
function opfsError(error: unknown, path: string, mismatch: FileErrorCode): FileSystemError {
  if (error instanceof FileSystemError) return error;
  const canonical = normalizePath(path);
  const name = (error as { name?: unknown } | null)?.name;
  switch (name) {
    case 'NotFoundError':
      return new FileSystemError('not-found', canonical);
    case 'TypeMismatchError':
      return mismatch === 'already-exists'
        ? new FileSystemError(mismatch, canonical, 'exists and is a file, not a directory')
        : new FileSystemError(mismatch, canonical);
    case 'TypeError':
      return new FileSystemError('invalid-path', canonical, `invalid name for OPFS (${(error as Error).message})`);
    case 'NotAllowedError':
    case 'SecurityError':
      return new FileSystemError('permission-denied', canonical, `permission denied (${name})`);
    case 'InvalidModificationError':
    case 'NoModificationAllowedError':
      return new FileSystemError(
        'io',
        canonical,
        `the file is locked or cannot be modified (${(error as Error).message})`,
      );
    default:
      return new FileSystemError('io', canonical, errorMessage(error));
  }
}
