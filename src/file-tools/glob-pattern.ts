/**
 * Glob patterns to regular expressions: `*` (within one path segment), `**` (any number of
 * segments, zero included), `?`, `[abc]`, `[!abc]`, `{a,b}` (nestable), `\` escapes. The tools
 * match a model's glob with {@link globMatcher} (linear time) rather than the RegExp.
 */
import { clipMiddle, SHOWN_PATH_CHARS } from './file-system.js';
import { LinearMatcher } from './linear-matcher.js';
import { PatternTooExpensiveError } from './pattern-budget.js';
import { CharSet, compileProgram, type PatternNode } from './pattern-nfa.js';

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
 * Compile a glob to an anchored RegExp over `/`-separated relative paths. The RegExp
 * backtracks (`**\/**\/**\/…` or `*a*a*a…` take exponential or high polynomial time on a
 * path that does not match), so use it for globs you wrote; a model's goes to {@link globMatcher}.
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

/** Any one character but the separator: what `*`, `?` and classes read. */
const NOT_SEPARATOR = new CharSet([[0x2f, 0x2f]], true);
const ANY = new CharSet([], true);

/**
 * A glob as a linear-time matcher over whole `/`-separated relative paths, the same language
 * as {@link globToRegExp}; its time is at most path × pattern size, counted on the budget
 * passed to `test`. `maxStates` caps the compiled size (`{a,b}{a,b}…` multiplies nothing,
 * but a long pattern is long).
 *
 * @example
 * globMatcher('**\/*.ts', 10_000).test('src/a/b.ts', budget) // true
 */
export function globMatcher(glob: string, maxStates: number): LinearMatcher {
  const shown = `the glob "${clipMiddle(glob, SHOWN_PATH_CHARS)}"`;
  try {
    const tree = globSequence({ glob, at: 0 }, 0);
    return new LinearMatcher(compileProgram(tree, maxStates, shown), true);
  } catch (error) {
    // Braces are read recursively: thousands of nested ones run out of stack.
    if (error instanceof RangeError)
      throw new PatternTooExpensiveError(`pattern too expensive: ${shown} nests its braces too deeply`);
    throw error;
  }
}

/** Glob text from `reader.at` up to a `,` or `}` closing brace `depth`, or the end. */
function globSequence(reader: { glob: string; at: number }, depth: number): PatternNode {
  const { glob } = reader;
  const items: PatternNode[] = [];
  const literal = (char: string) => items.push({ type: 'set', set: CharSet.of(char.codePointAt(0) as number) });
  while (reader.at < glob.length) {
    const char = glob[reader.at] as string;
    if (depth > 0 && (char === ',' || char === '}')) break;
    if (char === '*') {
      const [node, next] = starsTree(glob, reader.at);
      items.push(node);
      reader.at = next;
    } else if (char === '?') {
      items.push({ type: 'set', set: NOT_SEPARATOR });
      reader.at++;
    } else if (char === '[') {
      const [node, next] = classTree(glob, reader.at);
      items.push(node);
      reader.at = next;
    } else if (char === '{') {
      reader.at++;
      const choices = [globSequence(reader, depth + 1)];
      while (glob[reader.at] === ',') {
        reader.at++;
        choices.push(globSequence(reader, depth + 1));
      }
      if (glob[reader.at] !== '}')
        throw new GlobPatternError(`invalid glob "${clipMiddle(glob, SHOWN_PATH_CHARS)}": a "{" is not closed`);
      reader.at++;
      items.push({ type: 'alt', items: choices });
    } else if (char === '\\' && reader.at + 1 < glob.length) {
      const codePoint = glob.codePointAt(reader.at + 1) as number;
      items.push({ type: 'set', set: CharSet.of(codePoint) });
      reader.at += codePoint > 0xffff ? 3 : 2;
    } else {
      const codePoint = glob.codePointAt(reader.at) as number;
      if (codePoint > 0xffff) {
        items.push({ type: 'set', set: CharSet.of(codePoint) });
        reader.at += 2;
      } else {
        literal(char);
        reader.at++;
      }
    }
  }
  return { type: 'seq', items };
}

/** A run of `*` at `start`, as {@link stars} reads it. */
function starsTree(glob: string, start: number): [PatternNode, number] {
  let end = start;
  while (glob[end] === '*') end++;
  const wholeSegment =
    end - start >= 2 && (start === 0 || glob[start - 1] === '/') && (end === glob.length || glob[end] === '/');
  const segmentChars: PatternNode = {
    type: 'repeat',
    item: { type: 'set', set: NOT_SEPARATOR },
    min: 0,
    max: Infinity,
  };
  if (!wholeSegment) return [segmentChars, end];
  if (glob[end] !== '/') return [{ type: 'repeat', item: { type: 'set', set: ANY }, min: 0, max: Infinity }, end];
  // `**/`: zero or more whole directories, each one or more characters and a `/`.
  const directory: PatternNode = {
    type: 'seq',
    items: [
      { type: 'repeat', item: { type: 'set', set: NOT_SEPARATOR }, min: 1, max: Infinity },
      { type: 'set', set: CharSet.of(0x2f) },
    ],
  };
  return [{ type: 'repeat', item: directory, min: 0, max: Infinity }, end + 1];
}

/** `[...]` at `start` as {@link characterClass} reads it: members and `a-z` ranges, never `/`. */
function classTree(glob: string, start: number): [PatternNode, number] {
  let end = start + 1;
  if (glob[end] === '!' || glob[end] === '^') end++;
  if (glob[end] === ']') end++;
  while (end < glob.length && glob[end] !== ']') end++;
  if (end >= glob.length) return [{ type: 'set', set: CharSet.of(0x5b) }, start + 1];
  let body = Array.from(glob.slice(start + 1, end));
  const negated = body[0] === '!' || body[0] === '^';
  if (negated) body = body.slice(1);
  const ranges: [number, number][] = [];
  for (let i = 0; i < body.length; i++) {
    const from = (body[i] as string).codePointAt(0) as number;
    if (body[i + 1] === '-' && i + 2 < body.length) {
      const to = (body[i + 2] as string).codePointAt(0) as number;
      if (to < from)
        throw new GlobPatternError(
          `invalid glob "${clipMiddle(glob, SHOWN_PATH_CHARS)}": the range ${body[i]}-${body[i + 2]} is out of order`,
        );
      ranges.push([from, to]);
      i += 2;
    } else ranges.push([from, from]);
  }
  // A class never matches the separator, as `*` and `?` do not.
  const set: PatternNode = negated
    ? { type: 'set', set: new CharSet([...ranges, [0x2f, 0x2f]], true) }
    : { type: 'set', set: new CharSet(ranges.flatMap(withoutSeparator)) };
  return [set, end + 1];
}

/** A range with `/` cut out of it. */
function withoutSeparator([from, to]: [number, number]): [number, number][] {
  if (to < 0x2f || from > 0x2f) return [[from, to]];
  const parts: [number, number][] = [];
  if (from < 0x2f) parts.push([from, 0x2e]);
  if (to > 0x2f) parts.push([0x30, to]);
  return parts;
}
