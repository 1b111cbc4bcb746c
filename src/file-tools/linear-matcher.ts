/**
 * Matching a compiled pattern (pattern-nfa.ts) in time linear in the text: all the states the
 * pattern can be in are followed together, one character at a time, instead of trying one
 * path and backtracking. Each set of states met is remembered with its transitions (a lazy
 * DFA), so the common case costs one table look-up per character; the memory for that is
 * capped, and past it the sets are worked out again (still linear: text × pattern states).
 */
import type { PatternBudget } from './pattern-budget.js';
import type { AssertionKind, PatternProgram } from './pattern-nfa.js';

/**
 * Pattern states held in remembered sets (their kernels and closures) before the memory is
 * cleared and rebuilt: a few megabytes, however large the pattern.
 */
const MAX_REMEMBERED_STATES = 1_000_000;

/** Sets remembered before the memory is cleared (each holds a 128-entry table): about 4 MB. */
const MAX_REMEMBERED_SETS = 4096;

/**
 * Steps charged for each new transition worked out, besides the states visited: making a set
 * (its arrays, its table, the garbage when the memory is cleared) costs about as much as that
 * many table look-ups, measured on a pattern that makes a new set every few characters
 * (`[ab]*a[ab]{25}c` on random a/b text); the budget should track time, not just states.
 */
const NEW_SET_STEPS = 256;

/** Steps charged for a known transition found in a set's map rather than its table (a hash look-up). */
const MAP_STEPS = 4;

/** The states following a closure: which read characters, and whether one accepts. */
interface Closure {
  readonly readers: Int32Array;
  readonly accepts: boolean;
}

/** A set of pattern states, with what the previous character was, and its known transitions. */
interface StateSet {
  /** Pattern states reached by reading the last character, before following branches. */
  readonly kernel: Int32Array;
  readonly previousIsWord: boolean;
  readonly atStart: boolean;
  /**
   * Transitions by code point: a table for those below 128 once the set has a few (most sets
   * met once never need one, and allocating it for each costs more than the look-ups save),
   * a map for the rest; `true`: a match was found.
   */
  ascii: (StateSet | true | undefined)[] | undefined;
  other: Map<number, StateSet | true>;
  /** Closures before a non-word and a word character (the same when no `\b` is used). */
  closures: [Closure | undefined, Closure | undefined];
  acceptsAtEnd: boolean | undefined;
}

/**
 * A pattern ready to match many texts: `anchored` matches whole texts (Glob's paths), otherwise
 * a match anywhere counts (Grep's lines, as `RegExp.test`).
 *
 * @example
 * const matcher = new LinearMatcher(compileProgram(tree, 10_000, 'the pattern'), false)
 * matcher.test('some line', budget) // true or false, steps counted on the budget
 */
export class LinearMatcher {
  readonly #program: PatternProgram;
  readonly #anchored: boolean;
  /** Remembered sets by a hash of their states. */
  #remembered = new Map<number, StateSet[]>();
  #rememberedSize = 0;
  #rememberedSets = 0;
  readonly #initial: StateSet;
  readonly #marks: Int32Array;
  #mark = 0;
  /** Working space for closures and kernels, sized once for the pattern. */
  readonly #stack: Int32Array;
  readonly #scratch: Int32Array;

  constructor(program: PatternProgram, anchored: boolean) {
    this.#program = program;
    this.#anchored = anchored;
    this.#marks = new Int32Array(program.states.length);
    this.#stack = new Int32Array(program.states.length * 3 + 2);
    this.#scratch = new Int32Array(program.states.length);
    // Unanchored, the start state joins every closure instead (a match may begin anywhere).
    this.#initial = this.#intern(Int32Array.of(...(anchored ? [program.start] : [])), false, true);
  }

  /** Whether the pattern matches `text`, all at once (for short texts such as paths). */
  test(text: string, budget: PatternBudget): boolean {
    const scan = this.scan(text);
    for (;;) {
      const found = scan.run(budget, false);
      if (found !== undefined) return found;
    }
  }

  /**
   * A resumable match over `text`: `run` returns true or false when done, or undefined when a
   * pause is due (await `budget.pause()`, then run again), so a long line cannot hold the
   * event loop past the budget's pause interval.
   */
  scan(text: string): { run(budget: PatternBudget, stopWhenDue?: boolean): boolean | undefined } {
    const progress = { position: 0, current: this.#initial };
    return { run: (budget, stopWhenDue = true) => this.#run(text, progress, budget, stopWhenDue) };
  }

  /** Read `text` on from `progress` (updated in place) until an answer, or a due pause. */
  #run(
    text: string,
    progress: { position: number; current: StateSet },
    budget: PatternBudget,
    stopWhenDue: boolean,
  ): boolean | undefined {
    const anchored = this.#anchored;
    const length = text.length;
    let { position, current } = progress;
    let allowance = budget.allowance;
    let steps = 0;
    while (position < length) {
      let codePoint = text.charCodeAt(position++);
      if (codePoint >= 0xd800 && codePoint <= 0xdbff && position < length) {
        const low = text.charCodeAt(position);
        if (low >= 0xdc00 && low <= 0xdfff) {
          codePoint = ((codePoint - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
          position++;
        }
      }
      const table = current.ascii;
      let next: StateSet | true | undefined;
      if (table !== undefined && codePoint < 128) {
        next = table[codePoint];
        steps++;
      } else {
        next = current.other.get(codePoint);
        steps += MAP_STEPS;
      }
      if (next === undefined) {
        const [found, cost] = this.#step(current, codePoint);
        next = found;
        steps += cost;
      }
      if (next === true) {
        budget.spend(steps);
        return true;
      }
      current = next;
      if (anchored && current.kernel.length === 0) {
        budget.spend(steps);
        return false; // nothing left alive: no need to read the rest
      }
      if (steps > allowance) {
        const due = budget.spend(steps);
        steps = 0;
        allowance = budget.allowance;
        if (due && stopWhenDue) {
          progress.position = position;
          progress.current = current;
          return undefined;
        }
      }
    }
    steps += this.#acceptsAtEnd(current);
    budget.spend(steps);
    return current.acceptsAtEnd === true;
  }

  /** The transition from `from` on `codePoint`, remembered; returns it and the steps it took. */
  #step(from: StateSet, codePoint: number): [StateSet | true, number] {
    const { states, usesWordBoundaries } = this.#program;
    const nextIsWord = isWordCharacter(codePoint);
    const [closure, closureCost] = this.#closure(from, nextIsWord, false);
    let result: StateSet | true;
    let cost = closureCost + closure.readers.length + NEW_SET_STEPS;
    if (closure.accepts && !this.#anchored) result = true;
    else {
      const mark = this.#nextMark();
      const marks = this.#marks;
      const scratch = this.#scratch;
      let count = 0;
      for (const reader of closure.readers) {
        const state = states[reader];
        if (state?.kind !== 'char' || !state.set.has(codePoint)) continue;
        if (marks[state.next] === mark) continue;
        marks[state.next] = mark;
        scratch[count++] = state.next;
      }
      const kernel = scratch.slice(0, count).sort();
      cost += count;
      if (this.#rememberedSize >= MAX_REMEMBERED_STATES || this.#rememberedSets >= MAX_REMEMBERED_SETS) this.#forget();
      result = this.#intern(kernel, usesWordBoundaries && nextIsWord, false);
    }
    remember(from, codePoint, result);
    return [result, cost];
  }

  /** Steps spent working out whether `set` accepts at the end of the text (0 when known). */
  #acceptsAtEnd(set: StateSet): number {
    if (set.acceptsAtEnd !== undefined) return 0;
    const [closure, cost] = this.#closure(set, false, true);
    set.acceptsAtEnd = closure.accepts;
    return cost;
  }

  /** The states reachable from `set` without reading, given what comes next, and the steps spent on it. */
  #closure(set: StateSet, nextIsWord: boolean, atEnd: boolean): [Closure, number] {
    const slot = this.#program.usesWordBoundaries && nextIsWord ? 1 : 0;
    const cached = atEnd ? undefined : set.closures[slot];
    if (cached) return [cached, 0];
    const { states, start } = this.#program;
    const mark = this.#nextMark();
    const marks = this.#marks;
    const scratch = this.#scratch;
    // Each state visited pushes at most two more: the stack never outgrows three per state.
    const stack = this.#stack;
    let top = 0;
    for (const index of set.kernel) stack[top++] = index;
    if (!this.#anchored) stack[top++] = start;
    let count = 0;
    let accepts = false;
    let cost = 0;
    while (top > 0) {
      const index = stack[--top] as number;
      if (marks[index] === mark) continue;
      marks[index] = mark;
      cost++;
      const state = states[index];
      if (state === undefined) continue;
      if (state.kind === 'char') scratch[count++] = index;
      else if (state.kind === 'match') accepts = true;
      else if (state.kind === 'split') {
        stack[top++] = state.alternative;
        stack[top++] = state.next;
      } else if (holds(state.assertion, set, nextIsWord, atEnd)) stack[top++] = state.next;
    }
    const closure = { readers: scratch.slice(0, count), accepts };
    if (!atEnd) {
      set.closures[slot] = closure;
      this.#rememberedSize += count;
    }
    return [closure, cost];
  }

  #intern(kernel: Int32Array, previousIsWord: boolean, atStart: boolean): StateSet {
    const hash = hashOf(kernel, previousIsWord, atStart);
    const bucket = this.#remembered.get(hash);
    const known = bucket?.find(
      (set) => set.previousIsWord === previousIsWord && set.atStart === atStart && sameStates(set.kernel, kernel),
    );
    if (known) return known;
    const set: StateSet = {
      kernel,
      previousIsWord,
      atStart,
      ascii: undefined,
      other: new Map(),
      closures: [undefined, undefined],
      acceptsAtEnd: undefined,
    };
    if (bucket) bucket.push(set);
    else this.#remembered.set(hash, [set]);
    this.#rememberedSize += kernel.length + 1;
    this.#rememberedSets++;
    return set;
  }

  /**
   * Drop the remembered sets and every transition into them, so memory stays bounded; the
   * initial set stays (cleared too), so no set outside the memory keeps old ones alive.
   */
  #forget(): void {
    for (const bucket of this.#remembered.values())
      for (const set of bucket) {
        set.ascii = undefined;
        set.other = new Map();
        set.closures = [undefined, undefined];
      }
    const initial = this.#initial;
    this.#remembered = new Map([[hashOf(initial.kernel, initial.previousIsWord, initial.atStart), [initial]]]);
    this.#rememberedSize = initial.kernel.length + 1;
    this.#rememberedSets = 1;
  }

  #nextMark(): number {
    this.#mark = (this.#mark + 1) | 0;
    if (this.#mark === 0) {
      this.#marks.fill(0);
      this.#mark = 1;
    }
    return this.#mark;
  }
}

/** Transitions a set has before its ASCII ones move to a table. */
const TABLE_AFTER = 4;

/** Record a transition; the set's ASCII ones move to a dense table once it has a few. */
function remember(from: StateSet, codePoint: number, to: StateSet | true): void {
  if (from.ascii !== undefined && codePoint < 128) {
    from.ascii[codePoint] = to;
    return;
  }
  from.other.set(codePoint, to);
  if (from.ascii !== undefined || from.other.size < TABLE_AFTER) return;
  // Dense from the start (a sparse array would be slow to read).
  const table = new Array<StateSet | true | undefined>(128).fill(undefined);
  for (const [known, target] of from.other)
    if (known < 128) {
      table[known] = target;
      from.other.delete(known);
    }
  from.ascii = table;
}

/** FNV-1a over the states and the two flags. */
function hashOf(kernel: Int32Array, previousIsWord: boolean, atStart: boolean): number {
  let hash = 0x811c9dc5 ^ (previousIsWord ? 1 : 0) ^ (atStart ? 2 : 0);
  for (const state of kernel) hash = Math.imul(hash ^ state, 0x01000193);
  return hash >>> 0;
}

function sameStates(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function holds(assertion: AssertionKind, set: StateSet, nextIsWord: boolean, atEnd: boolean): boolean {
  switch (assertion) {
    case 'start':
      return set.atStart;
    case 'end':
      return atEnd;
    case 'word-boundary':
      return set.previousIsWord !== (nextIsWord && !atEnd);
    case 'not-word-boundary':
      return set.previousIsWord === (nextIsWord && !atEnd);
  }
}

/** `\w`: what `\b` looks at. */
function isWordCharacter(codePoint: number): boolean {
  return (
    (codePoint >= 0x61 && codePoint <= 0x7a) ||
    (codePoint >= 0x41 && codePoint <= 0x5a) ||
    (codePoint >= 0x30 && codePoint <= 0x39) ||
    codePoint === 0x5f
  );
}
