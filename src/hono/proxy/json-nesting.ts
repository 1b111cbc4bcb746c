/**
 * How deeply a JSON text nests, found in one pass over it. A request body nested tens of
 * thousands of levels deep is a few bytes per level: parsed level by level it costs a rescan of
 * the rest of the text at each one (quadratic) and a stack frame each (the stack runs out).
 * One left-to-right pass with a counter refuses it at the first level past the limit, before
 * any parse, and on the way notes where each large value ends, so the stepwise parser
 * (`body-in-steps.ts`) never scans a value twice.
 */

/**
 * The deepest nesting of arrays and objects a request body may have by default. The bodies
 * the providers take nest a handful of levels (messages, content blocks, a tool's JSON
 * Schema and its arguments); 128 leaves generous room for deep schemas and tool arguments,
 * and is the recursion limit of common JSON stacks (serde_json's default), so an upstream
 * would likely refuse deeper anyway.
 */
export const DEFAULT_MAX_JSON_DEPTH = 128;

/**
 * The most a configured depth may be: the stepwise parser recurses once per level of a large
 * value, and checks of the parsed body walk it, so the bound keeps the stack safe.
 */
export const MAX_JSON_DEPTH_LIMIT = 1024;

/**
 * A JSON text nests arrays and objects deeper than allowed.
 *
 * @example
 * try { checkNesting(text, 128) } catch (error) { if (error instanceof JsonDepthError) return badRequest(error.message) }
 */
export class JsonDepthError extends Error {
  override readonly name = 'JsonDepthError';
  constructor(readonly maxDepth: number) {
    super(`the request body nests arrays and objects more than ${maxDepth} levels deep`);
  }
}

/**
 * Where large values end, by where they start: `ends.get(start)` is the offset just past the
 * array, object or string that opens at `start`. Only values longer than the scan's threshold
 * are noted (at most a few per step of text at each level), so the map stays small.
 */
export type ValueEnds = ReadonlyMap<number, number>;

/**
 * Throw {@link JsonDepthError} when `text` opens more than `maxDepth` arrays and objects inside
 * one another. One pass, linear in the text; strings are skipped whole (brackets in them do
 * not count). On text that is not JSON it still ends, and says nothing about validity.
 *
 * @example
 * checkNesting('{"a":[[1]]}', 3) // fine: 3 levels
 * checkNesting('[[[[]]]]', 3) // throws JsonDepthError
 */
export function checkNesting(text: string, maxDepth: number): void {
  new NestingScan(text, maxDepth).scan(text.length);
}

/**
 * {@link checkNesting} a step of about `step` characters at a time, awaiting `pause()`
 * between steps, and the ends of the values longer than `noteOver` (see {@link ValueEnds}).
 *
 * @example
 * const ends = await scanNestingInSteps(text, 128, () => new Promise((done) => setTimeout(done, 0)), 512 * 1024, 128 * 1024)
 */
export async function scanNestingInSteps(
  text: string,
  maxDepth: number,
  pause: () => Promise<void>,
  step: number,
  noteOver = step,
): Promise<ValueEnds> {
  const scan = new NestingScan(text, maxDepth, noteOver);
  while (true) {
    scan.scan(scan.at + step);
    if (scan.at >= text.length) return scan.ends;
    await pause();
  }
}

// The pass itself, resumable at any offset (inside a string included) so it can run in steps.
class NestingScan {
  at = 0;
  readonly ends = new Map<number, number>();
  // Where each open array or object began, innermost last; never longer than maxDepth.
  private readonly opens: number[] = [];
  // The opening quote of the string the scan is inside, or -1.
  private stringStart = -1;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    // Values longer than this have their ends noted; by default none.
    private readonly noteOver = Number.POSITIVE_INFINITY,
  ) {}

  // Scan on to about `limit`: a string's closing quote found past it is taken (the search for
  // it was already paid), so a long string costs one native search rather than a loop.
  scan(limit: number): void {
    const { text } = this;
    const end = Math.min(limit, text.length);
    let i = this.at;
    while (i < end) {
      if (this.stringStart >= 0) {
        const quote = text.indexOf('"', i);
        if (quote === -1) {
          i = text.length; // an unterminated string: nothing further counts
          break;
        }
        // Escaped when an odd run of backslashes precedes it; each run is counted once.
        let slashes = 0;
        for (let j = quote - 1; j > this.stringStart && text.charCodeAt(j) === 0x5c; j--) slashes++;
        i = quote + 1;
        if (slashes % 2 === 0) {
          this.note(this.stringStart, i);
          this.stringStart = -1;
        }
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === 0x22) this.stringStart = i;
      else if (c === 0x5b || c === 0x7b) {
        if (this.opens.length >= this.maxDepth) throw new JsonDepthError(this.maxDepth);
        this.opens.push(i);
      } else if (c === 0x5d || c === 0x7d) {
        const start = this.opens.pop();
        if (start !== undefined) this.note(start, i + 1);
      }
      i++;
    }
    this.at = i;
  }

  private note(start: number, end: number): void {
    if (end - start > this.noteOver) this.ends.set(start, end);
  }
}
