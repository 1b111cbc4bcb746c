import { errorMessage } from '../describe-error.js';
import type { ToolContext, ToolEntry } from '../registry/registry.js';
import type { FileSystem } from './file-system.js';
import { clipMiddle, displayPath, SHOWN_PATH_CHARS } from './file-system.js';
import { globMatcher } from './glob-pattern.js';
import { LinearMatcher } from './linear-matcher.js';
import type { FileToolsConfig, FileToolsOptions } from './options.js';
import { fileToolsConfig } from './options.js';
import { PatternBudget, PatternTooExpensiveError } from './pattern-budget.js';
import { compileProgram, requiredText } from './pattern-nfa.js';
import { parseRegex, RegexFeatureError } from './regex-syntax.js';
import { clipLine, decodeText, formatSize, plural, splitLines } from './text.js';
import { beyondLimitsNote, ignoredFor, relativeTo, walkFiles } from './walk.js';

/** Arguments of the Grep tool. */
export interface GrepArgs {
  /** A JavaScript regular expression, matched against each line (in linear time: no back-references or lookaround). */
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
 * The model writes the pattern, so it is matched in linear time (linear-matcher.ts), not by a
 * backtracking `RegExp`: `(a+)+$` costs what `a+$` does. Features that need backtracking
 * (back-references, lookaround) are refused by name. The call's work is capped by
 * `maxPatternSteps`, and it gives the event loop a turn every few milliseconds of matching,
 * so an abort ends it while it runs ("cancelled").
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
  const pattern = compilePattern(args.pattern, args.ignore_case ?? false, config);
  const filter = args.glob === undefined ? undefined : globFilter(args.glob, config.maxPatternStates);
  const budget = new PatternBudget(config.maxPatternSteps, signal, config.names.grep);
  const ignoreDirs = ignoredFor(config.ignoreDirs, args.glob);
  const walk = await walkFiles(fs, args.path ?? '', { ignoreDirs, maxFiles: config.maxFilesVisited, signal });

  const shown: string[] = [];
  let total = 0;
  let searched = 0;
  const skipped = { binary: [] as string[], large: [] as string[] };
  for (const file of walk.files) {
    // A step per file too, so a walk over many small files also pauses for an abort.
    if (budget.spend(1)) await budget.pause();
    if (filter && !walk.single && !filter(relativeTo(walk.start, file), budget)) continue;
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
    const lines = splitLines(text);
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index] as string;
      let found = matchLine(pattern, line, budget);
      if (typeof found !== 'boolean') found = await found; // only when a pause was due
      if (!found) continue;
      total++;
      if (shown.length < config.maxMatches) shown.push(`${file}:${index + 1}:${clipLine(line, MATCH_LINE_CHARS)}`);
    }
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

/** A compiled pattern, and text every match contains (lines without it are passed over unread). */
interface LinePattern {
  readonly matcher: LinearMatcher;
  readonly required: string | undefined;
}

/**
 * Whether `line` matches: at once, or (when a pause for the event loop and an abort is due)
 * a promise, so the common case costs no microtask per line.
 */
function matchLine(
  { matcher, required }: LinePattern,
  line: string,
  budget: PatternBudget,
): boolean | Promise<boolean> {
  if (required !== undefined && !line.includes(required))
    return budget.spend(1) ? budget.pause().then(() => false) : false;
  const scan = matcher.scan(line);
  const found = scan.run(budget);
  return found ?? finishScan(scan, budget);
}

async function finishScan(scan: ReturnType<LinearMatcher['scan']>, budget: PatternBudget): Promise<boolean> {
  for (;;) {
    await budget.pause();
    const found = scan.run(budget);
    if (found !== undefined) return found;
  }
}

/**
 * The pattern as a linear-time matcher. `RegExp` checks the syntax first (Unicode mode when the
 * pattern allows it, plain otherwise), so a typo is reported in the engine's own words; it is
 * never used to match.
 */
function compilePattern(pattern: string, ignoreCase: boolean, config: FileToolsConfig): LinePattern {
  const shown = `/${clipMiddle(pattern, SHOWN_PATH_CHARS)}/`;
  const flags = ignoreCase ? 'i' : '';
  let unicode = true;
  try {
    new RegExp(pattern, `${flags}u`);
  } catch {
    // Unicode mode rejects escapes like `\-` that plain mode accepts; try that before failing.
    unicode = false;
  }
  if (!unicode) {
    try {
      new RegExp(pattern, flags);
    } catch (error) {
      throw new Error(`invalid regular expression ${shown}: ${clipMiddle(errorMessage(error), SHOWN_PATH_CHARS)}`);
    }
  }
  try {
    const tree = parseRegex(pattern, { unicode, ignoreCase });
    const matcher = new LinearMatcher(compileProgram(tree, config.maxPatternStates, `the pattern ${shown}`), false);
    return { matcher, required: requiredText(tree) };
  } catch (error) {
    if (error instanceof RegexFeatureError)
      throw new Error(
        `unsupported regular expression ${shown}: ${error.message}; ${config.names.grep} matches in linear time, without backtracking`,
      );
    // The reader recurses per group: thousands of nested groups run out of stack.
    if (error instanceof RangeError)
      throw new PatternTooExpensiveError(`pattern too expensive: ${shown} nests its groups too deeply`);
    throw error;
  }
}

/** A glob without `/` matches file names anywhere (as ripgrep's `--glob`); with one, paths under the search path. */
function globFilter(glob: string, maxStates: number): (relative: string, budget: PatternBudget) => boolean {
  const matcher = globMatcher(glob.replace(/^\.\//, ''), maxStates);
  if (glob.includes('/')) return (relative, budget) => matcher.test(relative, budget);
  return (relative, budget) => matcher.test(relative.slice(relative.lastIndexOf('/') + 1), budget);
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
