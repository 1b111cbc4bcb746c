/**
 * Patterns as automata: a small syntax tree that Grep's regular expressions and Glob's globs
 * both compile to, and its Thompson construction into a state list. Matching such a list
 * (linear-matcher.ts) takes time proportional to text × states, never exponential, which a
 * backtracking `RegExp` on a model's pattern cannot promise.
 */
import { PatternTooExpensiveError } from './pattern-budget.js';

/** Zero-width conditions a regular expression may test. */
export type AssertionKind = 'start' | 'end' | 'word-boundary' | 'not-word-boundary';

/** A pattern's syntax tree. */
export type PatternNode =
  | { readonly type: 'set'; readonly set: CharSet }
  | { readonly type: 'seq'; readonly items: readonly PatternNode[] }
  | { readonly type: 'alt'; readonly items: readonly PatternNode[] }
  | { readonly type: 'repeat'; readonly item: PatternNode; readonly min: number; readonly max: number }
  | { readonly type: 'assert'; readonly kind: AssertionKind };

/** Code point ranges, `[from, to]` inclusive, in any order; optionally negated or matched without case. */
export class CharSet {
  constructor(
    readonly ranges: readonly (readonly [number, number])[],
    readonly negated = false,
    readonly ignoreCase = false,
  ) {}

  /** One code point (and its other cases, with `ignoreCase`). */
  static of(codePoint: number, ignoreCase = false): CharSet {
    return new CharSet([[codePoint, codePoint]], false, ignoreCase);
  }

  has(codePoint: number): boolean {
    let found = this.#inRanges(codePoint);
    if (!found && this.ignoreCase) {
      const char = String.fromCodePoint(codePoint);
      found = this.#inRanges(single(char.toLowerCase())) || this.#inRanges(single(char.toUpperCase()));
    }
    return found !== this.negated;
  }

  #inRanges(codePoint: number): boolean {
    if (codePoint < 0) return false;
    for (const [from, to] of this.ranges) if (codePoint >= from && codePoint <= to) return true;
    return false;
  }
}

/** The code point of a one-character string, or -1 (a case mapping may give several). */
function single(text: string): number {
  const codePoint = text.codePointAt(0) ?? -1;
  return text.length === (codePoint > 0xffff ? 2 : 1) ? codePoint : -1;
}

/** One state of a compiled pattern: read one character, branch without reading, test a condition, or accept. */
export type PatternState =
  | { kind: 'char'; set: CharSet; next: number }
  | { kind: 'split'; next: number; alternative: number }
  | { kind: 'assert'; assertion: AssertionKind; next: number }
  | { kind: 'match' };

/** A compiled pattern: its states, the first one, and whether any state tests word boundaries. */
export interface PatternProgram {
  readonly states: readonly PatternState[];
  readonly start: number;
  readonly usesWordBoundaries: boolean;
}

/**
 * The states of `node` (Thompson's construction, built back to front so each piece knows what
 * follows it). `maxStates` caps the size, so `(x{1000}){1000}` fails fast instead of filling
 * memory; `what` names the pattern and the limit in that error.
 */
export function compileProgram(node: PatternNode, maxStates: number, what: string): PatternProgram {
  const states: PatternState[] = [];
  let usesWordBoundaries = false;
  const add = (state: PatternState): number => {
    if (states.length >= maxStates)
      throw new PatternTooExpensiveError(`pattern too expensive: ${what} needs over ${maxStates} states`);
    states.push(state);
    return states.length - 1;
  };
  const emit = (item: PatternNode, next: number): number => {
    switch (item.type) {
      case 'set':
        return add({ kind: 'char', set: item.set, next });
      case 'seq': {
        let at = next;
        for (let i = item.items.length - 1; i >= 0; i--) at = emit(item.items[i] as PatternNode, at);
        return at;
      }
      case 'alt': {
        if (item.items.length === 0) return next;
        let at = emit(item.items[item.items.length - 1] as PatternNode, next);
        for (let i = item.items.length - 2; i >= 0; i--)
          at = add({ kind: 'split', next: emit(item.items[i] as PatternNode, next), alternative: at });
        return at;
      }
      case 'assert':
        if (item.kind === 'word-boundary' || item.kind === 'not-word-boundary') usesWordBoundaries = true;
        return add({ kind: 'assert', assertion: item.kind, next });
      case 'repeat':
        return emitRepeat(item.item, item.min, item.max, next);
    }
  };
  const emitRepeat = (item: PatternNode, min: number, max: number, next: number): number => {
    let at = next;
    if (max === Number.POSITIVE_INFINITY) {
      // A loop: the split goes round through the item or on; the item is emitted once.
      const loop = add({ kind: 'split', next: -1, alternative: next });
      (states[loop] as { next: number }).next = emit(item, loop);
      at = loop;
    } else {
      // `x{0,k}` as nested options, `(x(x(x)?)?)?`, each one free to stop.
      for (let i = min; i < max; i++) at = add({ kind: 'split', next: emit(item, at), alternative: next });
    }
    for (let i = 0; i < min; i++) at = emit(item, at);
    return at;
  };
  const match = add({ kind: 'match' });
  const start = emit(node, match);
  return { states, start, usesWordBoundaries };
}

/**
 * The longest run of plain characters every match of `node` contains (`function\s+parseConfig`
 * → `parseConfig`), or undefined. A line without it cannot match, and `String.includes` says
 * so far faster than the matcher; case-insensitive characters end a run.
 *
 * @example
 * requiredText({ type: 'seq', items: [CharSet.of(0x61), CharSet.of(0x62)].map((set) => ({ type: 'set', set })) }) // 'ab'
 */
export function requiredText(node: PatternNode): string | undefined {
  const items: PatternNode[] = [];
  const flatten = (item: PatternNode): void => {
    if (item.type === 'seq') for (const inner of item.items) flatten(inner);
    else items.push(item);
  };
  flatten(node);
  let best = '';
  let run = '';
  for (const item of items) {
    const codePoint = item.type === 'set' ? plainCharacter(item.set) : undefined;
    if (codePoint === undefined) run = '';
    else {
      run += String.fromCodePoint(codePoint);
      if (run.length > best.length) best = run;
    }
  }
  return best === '' ? undefined : best;
}

function plainCharacter(set: CharSet): number | undefined {
  if (set.negated || set.ignoreCase || set.ranges.length !== 1) return undefined;
  const [from, to] = set.ranges[0] as readonly [number, number];
  return from === to ? from : undefined;
}
