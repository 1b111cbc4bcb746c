import type { ToolEntry } from '../registry/registry.js';
import type { FileSystem } from './file-system.js';
import { displayPath, FileSystemError, normalizePath, parentPath, statOrUndefined } from './file-system.js';
import type { FileToolsConfig, FileToolsOptions } from './options.js';
import { fileToolsConfig } from './options.js';
import { formatSize } from './text.js';

/** Arguments of the Write tool. */
export interface WriteArgs {
  readonly path: string;
  readonly content: string;
}

/**
 * The Write tool: create a file or overwrite one, creating missing parent directories. The
 * result says whether the file was new and how large it is now.
 *
 * @example
 * registry.registerMany([writeTool(fs)]) // usually: registerFileTools(registry, fs)
 */
export function writeTool(fs: FileSystem, options: FileToolsOptions | FileToolsConfig = {}): ToolEntry {
  const config = 'names' in options ? options : fileToolsConfig(options);
  const { names } = config;
  return {
    schema: {
      name: names.write,
      description:
        'Write a file: create a new one or overwrite an existing one with the given content, creating parent folders as needed.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Path relative to the workspace root, e.g. notes/todo.md.' },
          content: { type: 'string', description: 'The complete new contents of the file.' },
        },
        required: ['path', 'content'],
        additionalProperties: false,
      },
    },
    handler: (args: WriteArgs) => writeFile(fs, args),
  };
}

async function writeFile(fs: FileSystem, args: WriteArgs): Promise<string> {
  const path = normalizePath(args.path);
  if (path === '') throw new FileSystemError('not-a-file', path, 'is the root directory; name a file');
  const before = await statOrUndefined(fs, path);
  if (before?.isDirectory) throw new FileSystemError('not-a-file', path, 'is a directory; name a file');
  if (!before) await fs.mkdir(parentPath(path));
  const bytes = new TextEncoder().encode(args.content);
  await fs.writeFile(path, bytes);
  const size = `${formatSize(bytes.byteLength)}${bytes.byteLength >= 1024 ? ` (${bytes.byteLength} bytes)` : ''}`;
  return before
    ? `Overwrote ${displayPath(path)}: ${size}, was ${formatSize(before.size)}.`
    : `Created ${displayPath(path)}: ${size}.`;
}
