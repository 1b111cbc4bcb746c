import type { ToolEntry } from '../registry/registry.js';
import type { FileSystem } from './file-system.js';
import { displayPath, FileSystemError, normalizePath } from './file-system.js';
import type { FileToolsConfig, FileToolsOptions } from './options.js';
import { fileToolsConfig } from './options.js';
import { decodeText, formatSize, lineAt } from './text.js';

/** Arguments of the Edit tool. */
export interface EditArgs {
  readonly path: string;
  readonly old_string: string;
  readonly new_string: string;
  /** Replace every occurrence instead of requiring exactly one. */
  readonly replace_all?: boolean;
}

/**
 * The Edit tool: replace an exact string in a text file. Fails, leaving the file untouched,
 * when the string is absent, or occurs more than once without `replace_all` (the error says
 * how often and on which lines). Replacement text is literal: `$&` stays `$&`.
 *
 * @example
 * registry.registerMany([editTool(fs)]) // usually: registerFileTools(registry, fs)
 */
export function editTool(fs: FileSystem, options: FileToolsOptions | FileToolsConfig = {}): ToolEntry {
  const config = 'names' in options ? options : fileToolsConfig(options);
  return {
    schema: {
      name: config.names.edit,
      description:
        'Edit a text file by replacing an exact string: fix a typo, change or update a line or a block of code. ' +
        'old_string must match the file exactly, whitespace included, and occur once; include surrounding lines to make it unique, ' +
        'or set replace_all to change every occurrence.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Path relative to the workspace root.' },
          old_string: { type: 'string', minLength: 1, description: 'The exact text to replace.' },
          new_string: { type: 'string', description: 'The text to put in its place.' },
          replace_all: { type: 'boolean', description: 'Replace every occurrence (default false).' },
        },
        required: ['path', 'old_string', 'new_string'],
        additionalProperties: false,
      },
    },
    handler: (args: EditArgs) => editFile(fs, config, args),
  };
}

async function editFile(fs: FileSystem, config: FileToolsConfig, args: EditArgs): Promise<string> {
  const path = normalizePath(args.path);
  const text = await editableText(fs, config, path);
  if (args.old_string === args.new_string) throw new Error('old_string and new_string are the same; nothing to change');
  const { search, replacement } = lineEndings(text, args.old_string, args.new_string);
  const at = occurrences(text, search);
  if (at.length === 0) {
    throw new Error(
      `old_string was not found in ${displayPath(path)}; it must match exactly, whitespace and line breaks included (read the file to copy it)`,
    );
  }
  const lines = at.map((index) => lineAt(text, index));
  if (at.length > 1 && !args.replace_all) {
    throw new Error(
      `old_string occurs ${at.length} times in ${displayPath(path)} (lines ${lines.join(', ')}); ` +
        'add surrounding text to make it unique, or set replace_all to replace every occurrence',
    );
  }
  await fs.writeFile(path, spliceAll(text, at, search.length, replacement));
  return at.length === 1
    ? `Edited ${displayPath(path)}: replaced 1 occurrence at line ${lines[0]}.`
    : `Edited ${displayPath(path)}: replaced ${at.length} occurrences (lines ${lines.join(', ')}).`;
}

/** A file's text, refusing directories, files over the cap and binary files. */
async function editableText(fs: FileSystem, config: FileToolsConfig, path: string): Promise<string> {
  const info = await fs.stat(path);
  if (info.isDirectory) throw new FileSystemError('not-a-file', path);
  if (info.size > config.maxFileBytes) {
    throw new Error(
      `${displayPath(path)} is ${formatSize(info.size)}, over the ${formatSize(config.maxFileBytes)} limit for editing`,
    );
  }
  const bytes = await fs.readFile(path);
  const text = decodeText(bytes);
  if (text === undefined)
    throw new Error(`${displayPath(path)}: binary file, ${bytes.byteLength} bytes; only text files can be edited`);
  return text;
}

/**
 * Models copy text from Read output, which shows CRLF files with LF endings; when the LF
 * form is absent from a CRLF file, match (and write) the CRLF form instead.
 */
function lineEndings(text: string, search: string, replacement: string): { search: string; replacement: string } {
  if (!search.includes('\n') || search.includes('\r') || text.includes(search) || !text.includes('\r\n')) {
    return { search, replacement };
  }
  const crlf = (s: string) => s.replace(/\r?\n/g, '\r\n');
  return { search: crlf(search), replacement: crlf(replacement) };
}

/** Start indices of non-overlapping occurrences, left to right. */
function occurrences(text: string, search: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(search); i !== -1; i = text.indexOf(search, i + search.length)) found.push(i);
  return found;
}

/** Replace at each index by slicing, never `String.replace`, whose `$` patterns would rewrite the text. */
function spliceAll(text: string, at: readonly number[], length: number, replacement: string): string {
  let out = '';
  let from = 0;
  for (const index of at) {
    out += text.slice(from, index) + replacement;
    from = index + length;
  }
  return out + text.slice(from);
}
