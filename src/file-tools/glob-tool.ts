import type { ToolContext, ToolEntry } from '../registry/registry.js';
import type { FileSystem } from './file-system.js';
import { checkPathText, clipMiddle, displayPath, FileSystemError, SHOWN_PATH_CHARS } from './file-system.js';
import { globMatcher } from './glob-pattern.js';
import type { FileToolsConfig, FileToolsOptions } from './options.js';
import { fileToolsConfig } from './options.js';
import { PatternBudget } from './pattern-budget.js';
import { plural } from './text.js';
import { beyondLimitsNote, ignoredFor, relativeTo, walkFiles } from './walk.js';

/** Arguments of the Glob tool. */
export interface GlobArgs {
  /** A glob relative to `path`: `**\/*.ts`, `docs/*.md`, `src/{a,b}/**`. */
  readonly pattern: string;
  /** The directory to list under, relative to the root (default: the root). */
  readonly path?: string;
}

/**
 * The Glob tool: files whose paths match a glob, sorted, at most `maxPaths` of them
 * ("N more paths not shown"). Paths in the result are relative to the root, ready for Read.
 * The model writes the pattern, so it is matched in linear time (`globMatcher`): twelve `**\/`
 * cost what one does. The work is capped by `maxPatternSteps`, and an abort ends the call
 * while it matches.
 *
 * @example
 * registry.registerMany([globTool(fs)]) // usually: registerFileTools(registry, fs)
 */
export function globTool(fs: FileSystem, options: FileToolsOptions | FileToolsConfig = {}): ToolEntry {
  const config = 'names' in options ? options : fileToolsConfig(options);
  return {
    schema: {
      name: config.names.glob,
      description:
        'List files whose paths match a glob pattern, sorted: **/*.ts for all TypeScript files, **/*.md for all markdown files, ' +
        'docs/* for one folder. Use it to see which files exist before opening them.',
      parameters: {
        type: 'object',
        properties: {
          pattern: {
            type: 'string',
            minLength: 1,
            description: 'Glob: * within a folder, ** across folders, ?, [abc], {a,b}.',
          },
          path: {
            type: 'string',
            description: 'Folder to list under, relative to the workspace root (default: everything).',
          },
        },
        required: ['pattern'],
        additionalProperties: false,
      },
    },
    handler: (args: GlobArgs, { signal }: ToolContext) => glob(fs, config, args, signal),
  };
}

async function glob(fs: FileSystem, config: FileToolsConfig, args: GlobArgs, signal: AbortSignal): Promise<string> {
  const pattern = args.pattern.replace(/^\.\//, '');
  // The pattern is matched against paths under the root, so one that climbs out or starts at
  // `/` could never match: say why instead of answering "no files".
  if (pattern.startsWith('/') || pattern.split('/').includes('..')) throw new FileSystemError('escapes-root', pattern);
  checkPathText(pattern); // length, NUL bytes and drive letters
  const matcher = globMatcher(pattern, config.maxPatternStates);
  const walk = await walkFiles(fs, args.path ?? '', {
    ignoreDirs: ignoredFor(config.ignoreDirs, pattern),
    maxFiles: config.maxFilesVisited,
    signal,
  });
  if (walk.single) throw new FileSystemError('not-a-directory', walk.start, 'is a file; pass a folder as path');
  // The model wrote the pattern: matched in linear time, the work capped and abortable.
  const budget = new PatternBudget(config.maxPatternSteps, signal, config.names.glob);
  const matched: string[] = [];
  for (const file of walk.files) {
    if (budget.due) await budget.pause();
    if (matcher.test(relativeTo(walk.start, file), budget)) matched.push(file);
  }

  if (matched.length === 0)
    return `No files match ${clipMiddle(args.pattern, SHOWN_PATH_CHARS)}${walk.start === '' ? '' : ` under ${displayPath(walk.start)}`}.`;
  const shown = matched.slice(0, config.maxPaths);
  const notes: string[] = [];
  if (matched.length > shown.length)
    notes.push(`${plural(matched.length - shown.length, 'more path')} not shown; narrow the pattern or path`);
  if (walk.truncated) notes.push(`stopped after ${config.maxFilesVisited} files; narrow the pattern or path`);
  if (walk.beyondLimits > 0) notes.push(beyondLimitsNote(walk.beyondLimits));
  return notes.length === 0
    ? shown.join('\n')
    : `${shown.join('\n')}\n\n${notes.map((note) => `(${note})`).join('\n')}`;
}
