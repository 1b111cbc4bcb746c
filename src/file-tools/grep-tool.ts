import { errorMessage } from '../describe-error.js';
import type { ToolContext, ToolEntry } from '../registry/registry.js';
import type { FileSystem } from './file-system.js';
import { clipMiddle, displayPath, SHOWN_PATH_CHARS } from './file-system.js';
import { globToRegExp } from './glob-pattern.js';
import type { FileToolsConfig, FileToolsOptions } from './options.js';
import { fileToolsConfig } from './options.js';
import { clipLine, decodeText, formatSize, plural, splitLines } from './text.js';
import { beyondLimitsNote, ignoredFor, relativeTo, walkFiles } from './walk.js';

/** Arguments of the Grep tool. */
export interface GrepArgs {
  /** A JavaScript regular expression, matched against each line. */
  readonly pattern: string;
  /** A directory or file to search, relative to the root (default: the root). */
  readonly path?: string;
  /** Only files matching this glob (`*.ts`: by name; `src/**\/*.ts`: by path under `path`). */
  readonly glob?: string;
  readonly ignore_case?: boolean;
}

/** Characters of a matching line shown in a result. */
const MATCH_LINE_CHARS = 400;

/**
 * The Grep tool: a regular expression over file contents, one `path:line:text` per matching
 * line, in path order. Scoped by `path` and filtered by `glob`; binary files and files over
 * `maxFileBytes` are skipped and counted; matches past `maxMatches` are counted
 * ("N more matches not shown"). An invalid pattern is an error naming the problem.
 *
 * @example
 * registry.registerMany([grepTool(fs)]) // usually: registerFileTools(registry, fs)
 */
export function grepTool(fs: FileSystem, options: FileToolsOptions | FileToolsConfig = {}): ToolEntry {
  const config = 'names' in options ? options : fileToolsConfig(options);
  return {
    schema: {
      name: config.names.grep,
      description:
        'Search the text inside files with a regular expression: find, look up or locate where a name is defined or used, ' +
        'TODO comments, or any word. Prints path:line:text for each matching line. ' +
        'Narrow it with path (a folder or one file) and glob (e.g. *.ts); set ignore_case for case-insensitive matching.',
      parameters: {
        type: 'object',
        properties: {
          pattern: {
            type: 'string',
            minLength: 1,
            description: 'Regular expression (JavaScript syntax), e.g. function\\s+parseConfig.',
          },
          path: {
            type: 'string',
            description: 'Folder or file to search, relative to the workspace root (default: everything).',
          },
          glob: {
            type: 'string',
            description: 'Only files matching this glob: *.md matches by name, src/**/*.ts by path.',
          },
          ignore_case: { type: 'boolean', description: 'Case-insensitive matching (default false).' },
        },
        required: ['pattern'],
        additionalProperties: false,
      },
    },
    handler: (args: GrepArgs, { signal }: ToolContext) => grep(fs, config, args, signal),
  };
}

async function grep(fs: FileSystem, config: FileToolsConfig, args: GrepArgs, signal: AbortSignal): Promise<string> {
  const regex = compilePattern(args.pattern, args.ignore_case ?? false);
  const filter = args.glob === undefined ? undefined : globFilter(args.glob);
  const ignoreDirs = ignoredFor(config.ignoreDirs, args.glob);
  const walk = await walkFiles(fs, args.path ?? '', { ignoreDirs, maxFiles: config.maxFilesVisited, signal });

  const shown: string[] = [];
  let total = 0;
  let searched = 0;
  const skipped = { binary: [] as string[], large: [] as string[] };
  for (const file of walk.files) {
    if (filter && !walk.single && !filter(relativeTo(walk.start, file))) continue;
    signal.throwIfAborted();
    const info = await fs.stat(file);
    if (info.size > config.maxFileBytes) {
      skipped.large.push(file);
      continue;
    }
    const text = decodeText(await fs.readFile(file));
    if (text === undefined) {
      skipped.binary.push(file);
      continue;
    }
    searched++;
    splitLines(text).forEach((line, index) => {
      if (!regex.test(line)) return;
      total++;
      if (shown.length < config.maxMatches) shown.push(`${file}:${index + 1}:${clipLine(line, MATCH_LINE_CHARS)}`);
    });
  }

  const notes: string[] = [];
  if (total > shown.length)
    notes.push(
      `${plural(total - shown.length, 'more match', 'more matches')} not shown; narrow the pattern, path or glob`,
    );
  const skips = skipNote(skipped, config);
  if (skips) notes.push(skips);
  if (walk.truncated) notes.push(`stopped after ${config.maxFilesVisited} files; narrow the path or glob`);
  if (walk.beyondLimits > 0) notes.push(beyondLimitsNote(walk.beyondLimits));
  const where = walk.start === '' ? '' : ` under ${displayPath(walk.start)}`;
  const head =
    shown.length > 0
      ? shown.join('\n')
      : `No matches for /${clipMiddle(args.pattern, SHOWN_PATH_CHARS)}/${args.ignore_case ? 'i' : ''} in ${plural(searched, 'file')}${where}.`;
  return notes.length === 0 ? head : `${head}\n\n${notes.map((note) => `(${note})`).join('\n')}`;
}

/** The pattern as a RegExp: Unicode mode when the pattern allows it, plain otherwise. */
function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
  const flags = ignoreCase ? 'i' : '';
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch {
    // Unicode mode rejects escapes like `\-` that plain mode accepts; try that before failing.
  }
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    throw new Error(
      `invalid regular expression /${clipMiddle(pattern, SHOWN_PATH_CHARS)}/: ${clipMiddle(errorMessage(error), SHOWN_PATH_CHARS)}`,
    );
  }
}

/** A glob without `/` matches file names anywhere (as ripgrep's `--glob`); with one, paths under the search path. */
function globFilter(glob: string): (relative: string) => boolean {
  const regex = globToRegExp(glob.replace(/^\.\//, ''));
  if (glob.includes('/')) return (relative) => regex.test(relative);
  return (relative) => regex.test(relative.slice(relative.lastIndexOf('/') + 1));
}

function skipNote(skipped: { binary: string[]; large: string[] }, config: FileToolsConfig): string | undefined {
  const parts: string[] = [];
  if (skipped.binary.length > 0) parts.push(`${skipped.binary.length} binary`);
  if (skipped.large.length > 0)
    parts.push(`${skipped.large.length} over the ${formatSize(config.maxFileBytes)} limit: ${listSome(skipped.large)}`);
  const count = skipped.binary.length + skipped.large.length;
  return count === 0 ? undefined : `skipped ${plural(count, 'file')}: ${parts.join('; ')}`;
}

function listSome(paths: readonly string[], max = 5): string {
  const shown = paths.slice(0, max).join(', ');
  return paths.length > max ? `${shown} and ${paths.length - max} more` : shown;
}
