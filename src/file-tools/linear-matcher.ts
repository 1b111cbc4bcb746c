/**
 * Matching a compiled pattern (pattern-nfa.ts) in time linear in the text: all the states the
 * pattern can be in are followed together, one character at a time, instead of trying one
 * path and backtracking. Each set of states met is remembered with its transitions (a lazy
 * DFA), so the common case costs one table look-up per character; the memory for that is
 * capped, and past it the sets are worked out again (still linear: text × pattern states).
 */
import type { PatternBudget } from './pattern-budget.js';
import type { AssertionKind, PatternProgram } from './pattern-nfa.js';

/** State sets remembered per matcher before the memory is cleared and rebuilt. */
const MAX_REMEMBERED_SETS = 2000;

/**
 * Steps charged for making a new state set, besides the states visited: its key, table and
 * memory cost about that many table look-ups, and the budget should track time.
 */
const NEW_SET_STEPS = 32;

/** The states following a closure: which read characters, and whether one accepts. */
interface Closure {
  readonly readers: readonly number[];
  readonly accepts: boolean;
}

/** A set of pattern states, with what the previous character was, and its known transitions. */
interface StateSet {
  /** Pattern states reached by reading the last character, before following branches. */
  readonly kernel: readonly number[];
  readonly previousIsWord: boolean;
  readonly atStart: boolean;
  /** Transitions by code point below 128, then a map for the rest; `true`: a match was found. */
  ascii: (StateSet | true | undefined)[];
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
  #remembered = new Map<string, StateSet>();
  readonly #initial: StateSet;
  readonly #marks: Int32Array;
  #mark = 0;

  constructor(program: PatternProgram, anchored: boolean) {
    this.#program = program;
    this.#anchored = anchored;
    this.#marks = new Int32Array(program.states.length);
    // Unanchored, the start state joins every closure instead (a match may begin anywhere).
    this.#initial = this.#intern(anchored ? [program.start] : [], false, true);
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
      let next = codePoint < 128 ? current.ascii[codePoint] : current.other.get(codePoint);
      steps++;
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
    if (closure.accepts && !this.#anchored) result = true;
    else {
      const mark = this.#nextMark();
      const kernel: number[] = [];
      for (const reader of closure.readers) {
        const state = states[reader];
        if (state?.kind !== 'char' || !state.set.has(codePoint)) continue;
        if (this.#marks[state.next] === mark) continue;
        this.#marks[state.next] = mark;
        kernel.push(state.next);
      }
      kernel.sort((a, b) => a - b);
      if (this.#remembered.size >= MAX_REMEMBERED_SETS) this.#forget();
      result = this.#intern(kernel, usesWordBoundaries && nextIsWord, false);
    }
    if (codePoint < 128) from.ascii[codePoint] = result;
    else from.other.set(codePoint, result);
    return [result, closureCost + closure.readers.length + NEW_SET_STEPS];
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
    const stack = [...set.kernel];
    if (!this.#anchored) stack.push(start);
    const readers: number[] = [];
    let accepts = false;
    let cost = 0;
    while (stack.length > 0) {
      const index = stack.pop() as number;
      if (this.#marks[index] === mark) continue;
      this.#marks[index] = mark;
      cost++;
      const state = states[index];
      if (state === undefined) continue;
      if (state.kind === 'char') readers.push(index);
      else if (state.kind === 'match') accepts = true;
      else if (state.kind === 'split') stack.push(state.alternative, state.next);
      else if (holds(state.assertion, set, nextIsWord, atEnd)) stack.push(state.next);
    }
    const closure = { readers, accepts };
    if (!atEnd) set.closures[slot] = closure;
    return [closure, cost];
  }

  #intern(kernel: readonly number[], previousIsWord: boolean, atStart: boolean): StateSet {
    const key = keyOf(kernel, previousIsWord, atStart);
    let set = this.#remembered.get(key);
    if (!set) {
      set = {
        kernel,
        previousIsWord,
        atStart,
        ascii: emptyTable(),
        other: new Map(),
        closures: [undefined, undefined],
        acceptsAtEnd: undefined,
      };
      this.#remembered.set(key, set);
    }
    return set;
  }

  /**
   * Drop the remembered sets and every transition into them, so memory stays bounded; the
   * initial set stays (cleared too), so no set outside the memory keeps old ones alive.
   */
  #forget(): void {
    for (const set of this.#remembered.values()) {
      set.ascii = emptyTable();
      set.other = new Map();
    }
    const initial = this.#initial;
    this.#remembered = new Map([[keyOf(initial.kernel, initial.previousIsWord, initial.atStart), initial]]);
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

/** A dense table for the ASCII transitions (a sparse array would be slow to read). */
function emptyTable(): (StateSet | true | undefined)[] {
  return new Array<StateSet | true | undefined>(128).fill(undefined);
}

function keyOf(kernel: readonly number[], previousIsWord: boolean, atStart: boolean): string {
  return `${kernel.join(',')}|${previousIsWord ? 1 : 0}${atStart ? 1 : 0}`;
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
