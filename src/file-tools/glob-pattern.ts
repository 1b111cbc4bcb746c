/**
 * Glob patterns to regular expressions: `*` (within one path segment), `**` (any number of
 * segments, zero included), `?`, `[abc]`, `[!abc]`, `{a,b}` (nestable), `\` escapes.
 */
import { clipMiddle, SHOWN_PATH_CHARS } from './file-system.js';

/**
 * A pattern the matcher cannot use.
 *
 * @example
 * try { globToRegExp('{a,b') } catch (e) { e instanceof GlobPatternError } // true
 */
export class GlobPatternError extends Error {
  override readonly name = 'GlobPatternError';
}

/**
 * Compile a glob to an anchored RegExp over `/`-separated relative paths.
 *
 * @example
 * globToRegExp('**\/*.ts').test('src/a/b.ts') // true
 * globToRegExp('**\/*.ts').test('b.ts') // true (`**` may be zero directories)
 * globToRegExp('*.md').test('docs/a.md') // false (`*` stays in one segment)
 * globToRegExp('src/{a,b}/*.ts').test('src/b/x.ts') // true
 */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  let depth = 0;
  let i = 0;
  while (i < glob.length) {
    const char = glob[i] as string;
    if (char === '*') {
      const [piece, next] = stars(glob, i);
      source += piece;
      i = next;
    } else if (char === '?') {
      source += '[^/]';
      i++;
    } else if (char === '[') {
      const [piece, next] = characterClass(glob, i);
      source += piece;
      i = next;
    } else if (char === '{') {
      depth++;
      source += '(?:';
      i++;
    } else if (char === '}' && depth > 0) {
      depth--;
      source += ')';
      i++;
    } else if (char === ',' && depth > 0) {
      source += '|';
      i++;
    } else if (char === '\\' && i + 1 < glob.length) {
      source += escapeRegExp(glob[i + 1] as string);
      i += 2;
    } else {
      source += escapeRegExp(char);
      i++;
    }
  }
  if (depth > 0)
    throw new GlobPatternError(`invalid glob "${clipMiddle(glob, SHOWN_PATH_CHARS)}": a "{" is not closed`);
  return new RegExp(`^${source}$`);
}

/** A run of `*` at `start`: `**` as a whole segment spans directories, otherwise one segment. */
function stars(glob: string, start: number): [string, number] {
  let end = start;
  while (glob[end] === '*') end++;
  const wholeSegment =
    end - start >= 2 && (start === 0 || glob[start - 1] === '/') && (end === glob.length || glob[end] === '/');
  if (!wholeSegment) return ['[^/]*', end];
  // `**/` is zero or more directories; a trailing `**` is everything below.
  return glob[end] === '/' ? ['(?:[^/]+/)*', end + 1] : ['.*', end];
}

/** `[...]` at `start`, with `!` or `^` negating; an unclosed `[` is literal. */
function characterClass(glob: string, start: number): [string, number] {
  let end = start + 1;
  if (glob[end] === '!' || glob[end] === '^') end++;
  if (glob[end] === ']') end++; // a leading `]` is a member
  while (end < glob.length && glob[end] !== ']') end++;
  if (end >= glob.length) return ['\\[', start + 1];
  let body = glob.slice(start + 1, end);
  const negated = body.startsWith('!') || body.startsWith('^');
  if (negated) body = body.slice(1);
  const members = body.replace(/[\\\]^]/g, (c) => `\\${c}`);
  // A class never matches the separator, as `*` and `?` do not.
  return [negated ? `[^/${members}]` : `(?!/)[${members}]`, end + 1];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
