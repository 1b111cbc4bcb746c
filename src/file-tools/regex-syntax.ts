/**
 * JavaScript regular-expression syntax, read into the pattern tree of pattern-nfa.ts so Grep
 * can match a model's pattern in linear time. Everything a linear matcher can do is read:
 * literals and escapes, classes, `.`, groups (capturing, named, `(?:`), `|`, `* + ? {n,m}`
 * (lazy or not: only whether a line matches is asked), `^ $ \b \B`. What needs backtracking
 * (back-references, lookaround) is refused with a {@link RegexFeatureError} naming it. The
 * pattern has already passed `new RegExp`, so syntax errors are reported by the engine, in its
 * words, before this runs.
 */
import { CharSet, type PatternNode } from './pattern-nfa.js';

/**
 * A valid pattern using a feature Grep's linear matcher does not have.
 *
 * @example
 * try { parseRegex('(a)\\1', { unicode: true, ignoreCase: false }) } catch (e) { e instanceof RegexFeatureError } // true
 */
export class RegexFeatureError extends Error {
  override readonly name = 'RegexFeatureError';
}

/** How the pattern was accepted by `RegExp`: with the `u` flag or without, and with `i` or not. */
export interface RegexFlags {
  readonly unicode: boolean;
  readonly ignoreCase: boolean;
}

const LINE_TERMINATORS: [number, number][] = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];
const DIGITS: [number, number][] = [[0x30, 0x39]];
const WORD: [number, number][] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: [number, number][] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

/**
 * The tree of a JavaScript regular expression (one `RegExp` accepted with these flags).
 *
 * @example
 * parseRegex('function\\s+parseConfig', { unicode: true, ignoreCase: false }) // a 'seq' node
 */
export function parseRegex(pattern: string, flags: RegexFlags): PatternNode {
  return new RegexReader(pattern, flags).read();
}

/** A class member: ranges, or (for `\D`, `\W`, `\S` inside a class) a negated set to join. */
type ClassPart = { ranges: [number, number][] } | { negatedSet: [number, number][] };

class RegexReader {
  readonly #source: readonly string[];
  readonly #flags: RegexFlags;
  #at = 0;
  /** Capturing groups in the whole pattern, which decide what `\1` means without `u`. */
  readonly #groups: number;

  constructor(pattern: string, flags: RegexFlags) {
    // By code point, so an astral character is one atom as under the `u` flag.
    this.#source = Array.from(pattern);
    this.#flags = flags;
    this.#groups = countGroups(this.#source);
  }

  read(): PatternNode {
    const node = this.#alternation();
    // `RegExp` accepted the pattern, so a stray `)` cannot be left; this guards the reader.
    if (this.#at < this.#source.length) throw new RegexFeatureError(`unexpected "${this.#peek()}"`);
    return node;
  }

  #peek(offset = 0): string | undefined {
    return this.#source[this.#at + offset];
  }

  #alternation(): PatternNode {
    const items = [this.#sequence()];
    while (this.#peek() === '|') {
      this.#at++;
      items.push(this.#sequence());
    }
    return items.length === 1 ? (items[0] as PatternNode) : { type: 'alt', items };
  }

  #sequence(): PatternNode {
    const items: PatternNode[] = [];
    for (let char = this.#peek(); char !== undefined && char !== '|' && char !== ')'; char = this.#peek()) {
      const atom = this.#atom();
      items.push(this.#quantified(atom));
    }
    return { type: 'seq', items };
  }

  #quantified(atom: PatternNode): PatternNode {
    let node = atom;
    for (;;) {
      const bounds = this.#quantifier();
      if (!bounds) return node;
      if (this.#peek() === '?') this.#at++; // lazy: the same lines match
      node = { type: 'repeat', item: node, min: bounds[0], max: bounds[1] };
    }
  }

  /** `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}` at the cursor (consumed), or undefined. */
  #quantifier(): [number, number] | undefined {
    const char = this.#peek();
    if (char === '*' || char === '+' || char === '?') {
      this.#at++;
      return char === '*' ? [0, Number.POSITIVE_INFINITY] : char === '+' ? [1, Number.POSITIVE_INFINITY] : [0, 1];
    }
    if (char !== '{') return undefined;
    const rest = this.#source.slice(this.#at, this.#at + 64).join('');
    const match = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (!match) return undefined; // without `u`, a `{` that is no quantifier is a literal
    this.#at += Array.from(match[0]).length;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === '' ? Number.POSITIVE_INFINITY : Number(match[3]);
    return [min, max];
  }

  #atom(): PatternNode {
    const char = this.#peek() as string;
    this.#at++;
    switch (char) {
      case '^':
        return { type: 'assert', kind: 'start' };
      case '$':
        return { type: 'assert', kind: 'end' };
      case '.':
        return this.#set(LINE_TERMINATORS, true);
      case '(':
        return this.#group();
      case '[':
        return this.#characterClass();
      case '\\':
        return this.#escape();
      default:
        return this.#literal(char.codePointAt(0) as number);
    }
  }

  #group(): PatternNode {
    if (this.#peek() === '?') {
      const next = this.#peek(1);
      const after = this.#peek(2);
      if (next === '=' || next === '!' || (next === '<' && (after === '=' || after === '!')))
        throw new RegexFeatureError('lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported');
      if (next === ':') this.#at += 2;
      else if (next === '<') {
        const close = this.#source.indexOf('>', this.#at);
        this.#at = close + 1; // a named group: the name is of no use here
      } else throw new RegexFeatureError(`the group "(?${next ?? ''}" is not supported`);
    }
    const inner = this.#alternation();
    this.#at++; // the `)`; `RegExp` checked it is there
    return inner;
  }

  #escape(): PatternNode {
    const char = this.#peek() as string;
    switch (char) {
      case 'b':
        this.#at++;
        return { type: 'assert', kind: 'word-boundary' };
      case 'B':
        this.#at++;
        return { type: 'assert', kind: 'not-word-boundary' };
      case 'k':
        if (this.#flags.unicode || this.#source.includes('<'))
          throw new RegexFeatureError('back-references (\\1, \\k<name>) are not supported');
        break;
      default:
        // Without `u`, `\N` past the number of groups is an octal escape or the digit (Annex B).
        if (/[1-9]/.test(char) && (this.#flags.unicode || this.#groups >= Number(char)))
          throw new RegexFeatureError('back-references (\\1, \\k<name>) are not supported');
    }
    const part = this.#escapeInClass(false);
    return 'ranges' in part ? this.#set(part.ranges, false) : this.#set(part.negatedSet, true);
  }

  /** An escape after its `\`, in a class or not: a set of code points. */
  #escapeInClass(inClass: boolean): ClassPart {
    const char = this.#peek() as string;
    this.#at++;
    const one = (codePoint: number): ClassPart => ({ ranges: [[codePoint, codePoint]] });
    switch (char) {
      case 'd':
        return { ranges: DIGITS };
      case 'D':
        return { negatedSet: DIGITS };
      case 'w':
        return { ranges: WORD };
      case 'W':
        return { negatedSet: WORD };
      case 's':
        return { ranges: SPACE };
      case 'S':
        return { negatedSet: SPACE };
      case 't':
        return one(0x09);
      case 'n':
        return one(0x0a);
      case 'v':
        return one(0x0b);
      case 'f':
        return one(0x0c);
      case 'r':
        return one(0x0d);
      case 'b':
        return one(0x08); // in a class, `\b` is a backspace
      case '0':
        if (!/[0-9]/.test(this.#peek() ?? '')) return one(0);
        if (this.#flags.unicode) break;
        return one(this.#octal(0));
      case 'c': {
        const letter = this.#peek() ?? '';
        if (/[A-Za-z]/.test(letter)) {
          this.#at++;
          return one((letter.codePointAt(0) as number) % 32);
        }
        if (!this.#flags.unicode) {
          this.#at--; // Annex B: a lone `\c` is a backslash, then the `c` read on its own
          return one(0x5c);
        }
        break;
      }
      case 'x': {
        const hex = this.#hex(2);
        if (hex !== undefined) return one(hex);
        return one(0x78);
      }
      case 'u':
        return one(this.#unicodeEscape());
      case 'p':
      case 'P':
        if (this.#flags.unicode)
          throw new RegexFeatureError('Unicode property escapes (\\p{…}, \\P{…}) are not supported');
        break;
      default:
        if (inClass && char === '-') return one(0x2d);
    }
    if (/[1-9]/.test(char)) {
      if (this.#flags.unicode) throw new RegexFeatureError('back-references (\\1, \\k<name>) are not supported');
      // Annex B: an octal escape outside the `u` flag; `\8` and `\9` are the digits themselves.
      if (char === '8' || char === '9') return one(char.codePointAt(0) as number);
      return one(this.#octal(Number(char)));
    }
    return one(char.codePointAt(0) as number); // an identity escape: `\.`, `\/`, `\-`
  }

  /** The rest of an octal escape whose first digit was `value` (at most 0o377). */
  #octal(value: number): number {
    let result = value;
    while (result * 8 < 256 && /[0-7]/.test(this.#peek() ?? '')) {
      result = result * 8 + Number(this.#peek());
      this.#at++;
    }
    return result;
  }

  /** After `\u`: `XXXX` (a surrogate pair joined under `u`), `{X…}` under `u`, or a plain `u`. */
  #unicodeEscape(): number {
    if (this.#flags.unicode && this.#peek() === '{') {
      const close = this.#source.indexOf('}', this.#at);
      const value = Number.parseInt(this.#source.slice(this.#at + 1, close).join(''), 16);
      this.#at = close + 1;
      return value;
    }
    const high = this.#hex(4);
    if (high === undefined) return 0x75;
    if (this.#flags.unicode && high >= 0xd800 && high <= 0xdbff && this.#peek() === '\\' && this.#peek(1) === 'u') {
      const mark = this.#at;
      this.#at += 2;
      const low = this.#hex(4);
      if (low !== undefined && low >= 0xdc00 && low <= 0xdfff)
        return ((high - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
      this.#at = mark;
    }
    return high;
  }

  #hex(digits: number): number | undefined {
    const text = this.#source.slice(this.#at, this.#at + digits).join('');
    if (text.length !== digits || !/^[0-9a-fA-F]+$/.test(text)) return undefined;
    this.#at += digits;
    return Number.parseInt(text, 16);
  }

  #characterClass(): PatternNode {
    let negated = false;
    if (this.#peek() === '^') {
      negated = true;
      this.#at++;
    }
    const ranges: [number, number][] = [];
    const negatedSets: [number, number][][] = [];
    while (this.#peek() !== ']' && this.#peek() !== undefined) {
      const from = this.#classAtom();
      if (this.#peek() === '-' && this.#peek(1) !== ']' && this.#peek(1) !== undefined && 'ranges' in from) {
        const mark = this.#at;
        this.#at++;
        const to = this.#classAtom();
        const low = single(from);
        const high = 'ranges' in to ? single(to) : undefined;
        if (low !== undefined && high !== undefined) {
          ranges.push([low, high]);
          continue;
        }
        // Annex B: `[\d-x]` is a class, a `-` and an `x`, not a range.
        this.#at = mark;
      }
      if ('ranges' in from) ranges.push(...from.ranges);
      else negatedSets.push(from.negatedSet);
    }
    this.#at++; // the `]`
    if (negatedSets.length === 0) return this.#set(ranges, negated);
    // `[\W\d]`: any of the parts, each its own set.
    const items: PatternNode[] = negatedSets.map((set) => this.#set(set, true));
    if (ranges.length > 0) items.push(this.#set(ranges, false));
    if (!negated) return { type: 'alt', items };
    throw new RegexFeatureError('a negated class holding \\D, \\W or \\S ([^\\W…]) is not supported');
  }

  #classAtom(): ClassPart {
    const char = this.#peek() as string;
    this.#at++;
    if (char === '\\') return this.#escapeInClass(true);
    const codePoint = char.codePointAt(0) as number;
    return { ranges: [[codePoint, codePoint]] };
  }

  #literal(codePoint: number): PatternNode {
    return { type: 'set', set: CharSet.of(codePoint, this.#flags.ignoreCase) };
  }

  #set(ranges: readonly [number, number][], negated: boolean): PatternNode {
    return { type: 'set', set: new CharSet(ranges, negated, this.#flags.ignoreCase) };
  }
}

/** The code point of a one-character class part, or undefined for a set such as `\d`. */
function single(part: ClassPart): number | undefined {
  if (!('ranges' in part) || part.ranges.length !== 1) return undefined;
  const [from, to] = part.ranges[0] as [number, number];
  return from === to ? from : undefined;
}

/** The capturing groups of a pattern: `(` and `(?<name>`, outside classes and escapes. */
function countGroups(source: readonly string[]): number {
  let groups = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') i++;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(' && (source[i + 1] !== '?' || (source[i + 2] === '<' && !/[=!]/.test(source[i + 3] ?? ''))))
      groups++;
  }
  return groups;
}
