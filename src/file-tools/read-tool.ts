import type { ToolEntry } from '../registry/registry.js';
import type { FileSystem } from './file-system.js';
import { displayPath, FileSystemError, normalizePath } from './file-system.js';
import type { FileToolsConfig, FileToolsOptions } from './options.js';
import { fileToolsConfig } from './options.js';
import { clipLine, decodeText, formatSize, plural, splitLines } from './text.js';

/** Arguments of the Read tool. */
export interface ReadArgs {
  readonly path: string;
  /** First line to show, 1-based. */
  readonly offset?: number;
  /** How many lines to show. */
  readonly limit?: number;
}

/**
 * The Read tool: a text file with line numbers (`     12→text`), whole or a line range.
 * Files over `maxFileBytes` (2 MB) need `offset`/`limit`; binary files are refused with
 * their size. Long outputs stop with a notice naming the offset to continue from.
 *
 * @example
 * registry.registerMany([readTool(fs)]) // usually: registerFileTools(registry, fs)
 */
export function readTool(fs: FileSystem, options: FileToolsOptions | FileToolsConfig = {}): ToolEntry {
  const config = 'names' in options ? options : fileToolsConfig(options);
  const { names } = config;
  return {
    schema: {
      name: names.read,
      description:
        `Read a text file and show its contents with line numbers: open, view or show any file in the workspace. ` +
        `Pass offset and limit to read a range of lines of a long one. ` +
        `A file over ${formatSize(config.maxFileBytes)} needs a line range; a binary file is refused.`,
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Path relative to the workspace root, e.g. src/main.ts.' },
          offset: { type: 'integer', minimum: 1, description: 'First line to show (1-based).' },
          limit: { type: 'integer', minimum: 1, description: `How many lines to show (default ${config.maxLines}).` },
        },
        required: ['path'],
        additionalProperties: false,
      },
    },
    handler: (args: ReadArgs) => readFile(fs, config, args),
  };
}

async function readFile(fs: FileSystem, config: FileToolsConfig, args: ReadArgs): Promise<string> {
  const path = normalizePath(args.path);
  const info = await fs.stat(path);
  if (info.isDirectory)
    throw new FileSystemError('not-a-file', path, `is a directory; use ${config.names.glob} to list its files`);
  const ranged = args.offset !== undefined || args.limit !== undefined;
  if (info.size > config.maxFileBytes && !ranged) {
    throw new Error(
      `${displayPath(path)} is ${formatSize(info.size)} (${info.size} bytes), over the ${formatSize(config.maxFileBytes)} limit for reading a whole file. ` +
        'Read a range of lines with offset and limit (e.g. offset=1, limit=200).',
    );
  }
  if (info.size > config.maxScanBytes) {
    throw new Error(
      `${displayPath(path)} is ${formatSize(info.size)}, too large to read even by line range (limit ${formatSize(config.maxScanBytes)})`,
    );
  }
  const bytes = await fs.readFile(path);
  const text = decodeText(bytes);
  if (text === undefined)
    throw new Error(
      `${displayPath(path)}: binary file, ${bytes.byteLength} bytes; ${config.names.read} shows text files only`,
    );
  if (text === '') return `${displayPath(path)} is empty (0 bytes).`;
  return numbered(path, splitLines(text), config, args);
}

/** The requested lines with numbers, and a notice when more of the file remains. */
function numbered(path: string, lines: readonly string[], config: FileToolsConfig, args: ReadArgs): string {
  const first = args.offset ?? 1;
  if (first > lines.length) {
    throw new Error(`offset ${first} is past the end of ${displayPath(path)} (${plural(lines.length, 'line')})`);
  }
  const wanted = Math.min(args.limit ?? config.maxLines, lines.length - first + 1);
  const out: string[] = [];
  let chars = 0;
  for (let n = first; n < first + wanted; n++) {
    const row = `${String(n).padStart(6)}→${clipLine(lines[n - 1] as string, config.maxLineChars)}`;
    // The output cap is checked before adding, so at least one line always shows.
    if (out.length > 0 && chars + row.length > config.maxOutputChars) break;
    out.push(row);
    chars += row.length + 1;
  }
  const last = first + out.length - 1;
  if (first === 1 && last === lines.length) return out.join('\n');
  const next = last < lines.length ? `; call ${config.names.read} with offset=${last + 1} to continue` : '';
  return `${out.join('\n')}\n\n(showing lines ${first}-${last} of ${lines.length}${next})`;
}
