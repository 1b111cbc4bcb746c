import type { DirEntry, FileStat, FileSystem } from './file-system.js';
import { FileSystemError, normalizePath, pathSegments, toBytes } from './file-system.js';

type Directory = { kind: 'directory'; children: Map<string, Node> };
type Node = { kind: 'file'; data: Uint8Array } | Directory;

/**
 * A {@link FileSystem} held in memory: for tests, demos, and sandboxes that must not touch a
 * disk. `initialFiles` maps root-relative paths to contents; parent directories are created.
 * Bytes are copied in and out, so callers cannot change stored files behind its back.
 *
 * @example
 * const fs = memoryFileSystem({ 'README.md': '# Demo', 'src/main.ts': 'main()' })
 * registerFileTools(registry, fs)
 */
export function memoryFileSystem(initialFiles: Readonly<Record<string, string | Uint8Array>> = {}): FileSystem {
  const root: Directory = { kind: 'directory', children: new Map() };

  /** `mkdir -p`, synchronously: the children of the directory at `segments`. */
  const ensureDirectory = (segments: readonly string[]): Map<string, Node> => {
    let children = root.children;
    segments.forEach((name, i) => {
      let next = children.get(name);
      if (!next) {
        next = { kind: 'directory', children: new Map() };
        children.set(name, next);
      }
      if (next.kind !== 'directory') {
        throw new FileSystemError(
          'already-exists',
          segments.slice(0, i + 1).join('/'),
          'exists and is a file, not a directory',
        );
      }
      children = next.children;
    });
    return children;
  };

  /** The node at `path`, or undefined; a file met halfway is `not-a-directory`. */
  const find = (path: string): Node | undefined => {
    let node: Node = root;
    for (const name of pathSegments(path)) {
      if (node.kind !== 'directory')
        throw new FileSystemError('not-a-directory', path, 'a parent is a file, not a directory');
      const next = node.children.get(name);
      if (!next) return undefined;
      node = next;
    }
    return node;
  };
  const existing = (path: string): Node => {
    const node = find(path);
    if (!node) throw new FileSystemError('not-found', normalizePath(path));
    return node;
  };
  const directoryOf = (path: string): Map<string, Node> => {
    const node = existing(path);
    if (node.kind !== 'directory') throw new FileSystemError('not-a-directory', normalizePath(path));
    return node.children;
  };

  const fs: FileSystem = {
    kind: 'memory',
    async readFile(path) {
      const node = existing(path);
      if (node.kind !== 'file') throw new FileSystemError('not-a-file', normalizePath(path));
      return node.data.slice();
    },
    async writeFile(path, data) {
      const segments = pathSegments(path);
      const name = segments.pop();
      if (name === undefined) throw new FileSystemError('not-a-file', '');
      const children = directoryOf(segments.join('/'));
      if (children.get(name)?.kind === 'directory') throw new FileSystemError('not-a-file', normalizePath(path));
      children.set(name, { kind: 'file', data: toBytes(data).slice() });
    },
    async stat(path): Promise<FileStat> {
      const node = existing(path);
      return node.kind === 'file'
        ? { isFile: true, isDirectory: false, size: node.data.byteLength }
        : { isFile: false, isDirectory: true, size: 0 };
    },
    async list(path): Promise<DirEntry[]> {
      return [...directoryOf(path)].map(([name, node]) => ({ name, kind: node.kind }));
    },
    async mkdir(path) {
      ensureDirectory(pathSegments(path));
    },
  };

  for (const [path, data] of Object.entries(initialFiles)) {
    const segments = pathSegments(path);
    const name = segments.pop();
    if (name === undefined) throw new FileSystemError('invalid-path', path, 'an initial file needs a name');
    ensureDirectory(segments).set(name, { kind: 'file', data: toBytes(data).slice() });
  }
  return fs;
}
