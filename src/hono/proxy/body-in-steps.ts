/**
 * A large body parsed and encoded in steps. `JSON.parse` of an 8 MiB request holds the thread
 * for 10–20 ms and encoding the forwarded text for as long again; every request that arrives
 * meanwhile waits. Parsed member by member (the conversation message by message) and encoded
 * a piece at a time, with a pause between steps, the thread is never held for more than one
 * message's parse. The result is what one `JSON.parse` and one `TextEncoder.encode` give.
 */
import type { Edit } from './body-edits.js';
import { editedPieces } from './body-edits.js';
import type { ValueEnds } from './json-nesting.js';
import { DEFAULT_MAX_JSON_DEPTH, scanNestingInSteps } from './json-nesting.js';
import type { Span } from './json-spans.js';
import { eachArrayElement, eachObjectMember, hasJsonControl } from './json-spans.js';

/** A request body parsed in steps: the object, and where each top-level value sits. */
export interface StepParsedBody {
  readonly record: Record<string, unknown>;
  readonly spans: Map<string, Span>;
}

/**
 * Characters (UTF-16 units) parsed or encoded between two pauses. 128K rather than 512K (with
 * 256 KiB decode and write pieces): the small requests served beside an 8 MiB prompt moved by
 * 0–3 ms at p50 instead of 7–15 ms, for a big answer of 410–540 ms instead of 190–290 ms.
 */
export const STEP_CHARS = 128 * 1024;

/** Parse steps' worth of text the nesting pass covers between two pauses. */
const SCAN_STEPS = 4;

const INVALID = Symbol('invalid');

/**
 * The JSON object `text` is, parsed a top-level member (and an array's element) at a time,
 * awaiting `pause()` whenever about {@link STEP_CHARS} have been parsed since the last one.
 * Undefined when the text is not a JSON object: the caller's own `JSON.parse` then words the
 * error. A repeated key keeps its last value at its first place, and `__proto__` is an own
 * member, as with `JSON.parse`. Throws `JsonDepthError` when arrays and objects nest more than
 * `maxDepth` deep: a first pass in steps finds that (and where each large value ends, so that
 * no value is scanned twice) before anything is parsed, so the cost is linear in the text.
 *
 * @example
 * const parsed = await parseObjectInSteps(text, () => new Promise((done) => setTimeout(done, 0)))
 * parsed?.record.messages
 */
export async function parseObjectInSteps(
  text: string,
  pause: () => Promise<void>,
  step = STEP_CHARS,
  maxDepth = DEFAULT_MAX_JSON_DEPTH,
): Promise<StepParsedBody | undefined> {
  // The first pass costs a fraction of a parse per character (strings are skipped by a native
  // search), so its steps are longer: fewer pauses, each still well under a parse step's time.
  const ends = await scanNestingInSteps(text, maxDepth, pause, SCAN_STEPS * step, step);
  await pause();
  const budget = { left: step, step, pause, ends };
  const record: Record<string, unknown> = {};
  const spans = new Map<string, Span>();
  for (const member of eachObjectMember(text, undefined, ends)) {
    if (!member) return undefined;
    const { key, span } = member;
    const value = await parseValue(text, span, budget);
    if (value === INVALID) return undefined;
    define(record, key, value);
    spans.set(key, span);
  }
  return { record, spans };
}

interface Budget {
  left: number;
  readonly step: number;
  readonly pause: () => Promise<void>;
  /** Where the values longer than a step end (the first pass found them). */
  readonly ends: ValueEnds;
}

// As JSON.parse sets a member: an own property even for `__proto__`; a repeat keeps its place.
function define(record: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}

// Account for `size` characters of work, pausing first when the step's budget is spent.
async function spend(budget: Budget, size: number): Promise<void> {
  if (budget.left < size) {
    await budget.pause();
    budget.left = budget.step;
  }
  budget.left -= Math.min(size, budget.step);
}

// One value. A large array or object a member at a time, a large string a piece at a time.
async function parseValue(text: string, span: Span, budget: Budget): Promise<unknown> {
  const size = span.end - span.start;
  const first = text.charCodeAt(span.start);
  if (size > budget.step && first === 0x5b) return parseArrayInSteps(text, span, budget);
  if (size > budget.step && first === 0x7b) return parseMembersInSteps(text, span, budget);
  if (size > budget.step && first === 0x22) return parseStringInSteps(text, span, budget);
  await spend(budget, size);
  try {
    return JSON.parse(text.slice(span.start, span.end));
  } catch {
    return INVALID;
  }
}

// Small members in a row, from the first's start to the last's end: the text between holds
// them and the commas that part them, so one parse of it (in brackets or braces) gives them all.
interface Run {
  readonly from: number;
  to: number;
  count: number;
}

// A run grows while it stays within a step: the next member joins it, or it is parsed first.
function joins(run: Run | undefined, from: number, to: number, budget: Budget): run is Run {
  return run !== undefined && to - run.from <= budget.step && to - from <= budget.step;
}

// The text of `run` parsed as one, in `open` and `close`, after spending its size.
async function parseRun(text: string, run: Run, open: string, close: string, budget: Budget): Promise<unknown> {
  await spend(budget, run.to - run.from);
  try {
    return JSON.parse(`${open}${text.slice(run.from, run.to)}${close}`);
  } catch {
    return INVALID;
  }
}

// A large array: its large elements one by one, its small ones in runs of up to a step (an
// array of a million numbers is then a few dozen parses, not a million), read as they come so
// no step scans more than about a step of text.
async function parseArrayInSteps(text: string, span: Span, budget: Budget): Promise<unknown> {
  const values: unknown[] = [];
  let run: Run | undefined;
  const flush = async (): Promise<boolean> => {
    if (!run) return true;
    const parsed = await parseRun(text, run, '[', ']', budget);
    if (!Array.isArray(parsed) || parsed.length !== run.count) return false;
    for (const value of parsed) values.push(value);
    run = undefined;
    return true;
  };
  for (const element of eachArrayElement(text, span, budget.ends)) {
    if (!element) return INVALID;
    if (joins(run, element.start, element.end, budget)) {
      run.to = element.end;
      run.count++;
      continue;
    }
    if (!(await flush())) return INVALID;
    if (element.end - element.start <= budget.step) run = { from: element.start, to: element.end, count: 1 };
    else {
      const value = await parseValue(text, element, budget);
      if (value === INVALID) return INVALID;
      values.push(value);
    }
  }
  return (await flush()) ? values : INVALID;
}

// A large object, as a large array: small members in runs (from a key's opening quote), each
// value set in text order, so a repeated key keeps its first place and last value.
async function parseMembersInSteps(text: string, span: Span, budget: Budget): Promise<unknown> {
  const record: Record<string, unknown> = {};
  let run: Run | undefined;
  const flush = async (): Promise<boolean> => {
    if (!run) return true;
    const parsed = await parseRun(text, run, '{', '}', budget);
    if (typeof parsed !== 'object' || parsed === null) return false;
    const members = parsed as Record<string, unknown>;
    for (const key of Object.keys(members)) define(record, key, members[key]);
    run = undefined;
    return true;
  };
  for (const member of eachObjectMember(text, span, budget.ends)) {
    if (!member) return INVALID;
    if (joins(run, member.keyStart, member.span.end, budget)) {
      run.to = member.span.end;
      run.count++;
      continue;
    }
    if (!(await flush())) return INVALID;
    if (member.span.end - member.keyStart <= budget.step)
      run = { from: member.keyStart, to: member.span.end, count: 1 };
    else {
      const value = await parseValue(text, member.span, budget);
      if (value === INVALID) return INVALID;
      define(record, member.key, value);
    }
  }
  return (await flush()) ? record : INVALID;
}

/**
 * A long string literal: without escapes its value is the text between the quotes (checked for
 * the control characters JSON refuses); with them, parsed a piece at a time, each cut placed
 * where no escape sequence spans it. The pieces' values join into the value (an escaped
 * surrogate pair cut in two joins whole again: strings are UTF-16).
 */
async function parseStringInSteps(text: string, span: Span, budget: Budget): Promise<unknown> {
  const start = span.start + 1;
  const end = span.end - 1;
  if (end < start || text.charCodeAt(end) !== 0x22) return INVALID;
  const backslash = text.indexOf('\\', start);
  if (backslash === -1 || backslash >= end) {
    // No escapes: the value is the text itself (a slice, not a copy), once checked.
    for (let at = start; at < end; at += budget.step) {
      await spend(budget, Math.min(budget.step, end - at));
      if (hasJsonControl(text.slice(at, Math.min(end, at + budget.step)))) return INVALID;
    }
    return text.slice(start, end);
  }
  const pieces: string[] = [];
  for (let at = start; at < end; ) {
    const cut = Math.min(end, escapeFree(text, at, Math.min(end, at + budget.step)));
    await spend(budget, cut - at);
    const raw = text.slice(at, cut);
    if (!raw.includes('\\')) {
      if (hasJsonControl(raw)) return INVALID;
      pieces.push(raw);
    } else {
      try {
        pieces.push(JSON.parse(`"${raw}"`) as string);
      } catch {
        return INVALID;
      }
    }
    at = cut;
  }
  return pieces.length === 1 ? pieces[0] : pieces.join('');
}

// `cut`, or the end of the escape sequence it would fall inside. An escape begins at a backslash
// after an even run of backslashes and spans 2 characters, or 6 for `\uXXXX`; the backslash
// nearest before the cut decides, since an earlier escape ends at or before it.
function escapeFree(text: string, from: number, cut: number): number {
  for (let b = cut - 1; b >= Math.max(from, cut - 6); b--) {
    if (text.charCodeAt(b) !== 0x5c) continue;
    let run = 0;
    for (let j = b - 1; j >= from && text.charCodeAt(j) === 0x5c; j--) run++;
    if (run % 2 !== 0) return cut; // this backslash is the escaped one: its escape ends by the cut
    const end = b + (text.charCodeAt(b + 1) === 0x75 ? 6 : 2);
    return Math.max(end, cut);
  }
  return cut;
}

const encoder = new TextEncoder();

/**
 * `text` (or the pieces that joined make it) as UTF-8, encoded {@link STEP_CHARS} at a time
 * with `pause()` between steps (a surrogate pair is never cut). The same bytes as
 * `new TextEncoder().encode(text)`. Pieces spare a large edited body the copy into one string.
 *
 * @example
 * const bytes = await encodeInSteps(body, () => new Promise((done) => setTimeout(done, 0)))
 */
export async function encodeInSteps(
  text: string | readonly string[],
  pause: () => Promise<void>,
  step = STEP_CHARS,
): Promise<Uint8Array<ArrayBuffer>> {
  const pieces = typeof text === 'string' ? [text] : text;
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  let out = new Uint8Array(length + (length >> 3));
  let written = 0;
  const write = (chunk: string): void => {
    let rest = chunk;
    while (rest !== '') {
      const { read, written: added } = encoder.encodeInto(rest, out.subarray(written));
      written += added;
      if (read === rest.length) return;
      // Out of room (text beyond ASCII): a larger buffer, and the rest of the chunk.
      rest = rest.slice(read);
      const grown = new Uint8Array(Math.max(out.length * 2, written + rest.length * 3));
      grown.set(out.subarray(0, written));
      out = grown;
    }
  };
  let held = ''; // a high surrogate that ended a step, held for the low one that may follow
  await inSteps(pieces, step, pause, (piece, from, to) => {
    let chunk = held + piece.slice(from, to);
    const last = chunk.charCodeAt(chunk.length - 1);
    held = last >= 0xd800 && last <= 0xdbff ? chunk.slice(-1) : '';
    if (held !== '') chunk = chunk.slice(0, -1);
    write(chunk);
  });
  write(held);
  return out.subarray(0, written);
}

/**
 * The forwarded body as UTF-8: the client's `text` with `edits` applied, where `bytes` are the
 * bytes `text` was decoded from. When they are as many as its UTF-16 units, the body was ASCII
 * (a strictly decoded byte ≥ 0x80 or a BOM leaves fewer units than bytes), so a character's
 * offset is its byte's: the unedited stretches are copied from `bytes`, `step` bytes at a time,
 * and only the edits' texts are encoded. That spares an 8 MiB prompt its re-encoding and one
 * of its copies; when the edits make nothing longer at any point, `bytes` itself is edited (the
 * caller must not read it afterwards). Otherwise {@link encodeInSteps} of the edited pieces. The
 * same bytes either way.
 *
 * @example
 * const sent = await encodeEditedInSteps(text, bytes, [toolsEdit], nextTurn)
 */
export async function encodeEditedInSteps(
  text: string,
  bytes: Uint8Array,
  edits: readonly Edit[],
  pause: () => Promise<void>,
  step = STEP_CHARS,
): Promise<Uint8Array<ArrayBuffer>> {
  if (bytes.byteLength !== text.length) return encodeInSteps(editedPieces(text, edits), pause, step);
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  // Each piece: where it comes from (a stretch of `bytes`, or an edit's encoded text).
  const pieces: Uint8Array[] = [];
  let at = 0;
  let growth = 0; // bytes written less bytes read so far
  let inPlace = true;
  for (const edit of sorted) {
    const encoded = encoder.encode(edit.text);
    pieces.push(bytes.subarray(at, edit.start), encoded);
    growth += encoded.byteLength - (edit.end - edit.start);
    if (growth > 0) inPlace = false;
    at = edit.end;
  }
  pieces.push(bytes.subarray(at));
  // Where no edit writes past what has been read (the narrowed `tools` is shorter than the
  // client's), the body is edited in its own buffer, moving stretches left: an 8 MiB prompt
  // then costs no second buffer, which the collector would otherwise reclaim every round.
  const size = bytes.byteLength + growth;
  const out = inPlace ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(size);
  let written = 0;
  await inSteps(pieces, step, pause, (piece, from, to) => {
    if (out.buffer === piece.buffer) {
      // Leftwards within one buffer: copyWithin moves the bytes without a temporary copy.
      const source = piece.byteOffset - out.byteOffset;
      out.copyWithin(written, source + from, source + to);
    } else out.set(piece.subarray(from, to), written);
    written += to - from;
  });
  return out.subarray(0, size);
}

// Visit `pieces` in order, `step` units at a time (a piece's `length`: characters or bytes),
// awaiting `pause()` whenever a step's worth has been visited since the last one.
async function inSteps<Piece extends { readonly length: number }>(
  pieces: readonly Piece[],
  step: number,
  pause: () => Promise<void>,
  visit: (piece: Piece, from: number, to: number) => void,
): Promise<void> {
  let sincePause = 0;
  for (const piece of pieces) {
    for (let from = 0; from < piece.length; ) {
      if (sincePause >= step) {
        await pause();
        sincePause = 0;
      }
      const to = Math.min(piece.length, from + step - sincePause);
      visit(piece, from, to);
      sincePause += to - from;
      from = to;
    }
  }
}
