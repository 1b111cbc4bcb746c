/**
 * Where values sit in a JSON text, so the proxy can forward a request byte for byte and
 * rewrite only the `tools` array. The text must already be valid JSON (`JSON.parse` said so);
 * these scanners only skip values, they do not validate.
 */

import type { ValueEnds } from './json-nesting.js';

/** A value's place in the text: `text.slice(start, end)` is exactly its JSON. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** Replace `text.slice(start, end)` by `text`: a span of the client's text, rewritten. */
export interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * Where a value is already known to end: given a member's key and the offset its value starts
 * at, the offset just past that value, or undefined to scan it. Lets a caller skip a large
 * value it has seen before (the proxy's cached `tools` text) instead of walking every byte.
 */
export type KnownValueEnd = (key: string, start: number) => number | undefined;

/**
 * The span of each top-level member's value, by key. A repeated key keeps its last
 * occurrence, as `JSON.parse` does. `known` may vouch for where a value ends; the caller then
 * owns checking that the text is valid JSON (see `parseProxyRequest`). On text that is not a
 * JSON object the spans are meaningless, but the scan always ends.
 *
 * @example
 * const spans = topLevelSpans('{"model":"m","tools":[{"a":1}]}')
 * spans.get('tools') // { start: 21, end: 30 }
 */
export function topLevelSpans(text: string, known?: KnownValueEnd): Map<string, Span> {
  const spans = new Map<string, Span>();
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return spans;
  i = skipSpace(text, i + 1);
  while (i < text.length && text[i] !== '}') {
    if (text[i] !== '"') return spans;
    const keyEnd = skipString(text, i);
    const key = keyText(text, i, keyEnd);
    if (key === undefined) return spans;
    i = skipSpace(text, keyEnd);
    i = skipSpace(text, i + 1); // the colon
    const end = known?.(key, i) ?? skipValue(text, i);
    spans.set(key, { start: i, end });
    if (end <= i) return spans;
    i = skipSpace(text, end);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return spans;
}

// A member key's text; JSON.parse only when it holds an escape.
function keyText(text: string, start: number, end: number): string | undefined {
  const raw = text.slice(start + 1, end - 1);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(start, end)) as string;
  } catch {
    return undefined;
  }
}

/**
 * The span of each element of the array at `span`.
 *
 * @example
 * arrayElementSpans('[1, {"a":2}]', { start: 0, end: 12 }) // [{ start: 1, end: 2 }, { start: 4, end: 11 }]
 */
export function arrayElementSpans(text: string, span: Span): Span[] {
  const elements: Span[] = [];
  if (text[span.start] !== '[') return elements;
  let i = skipSpace(text, span.start + 1);
  while (i < span.end && text[i] !== ']') {
    const end = skipValue(text, i);
    elements.push({ start: i, end });
    i = skipSpace(text, end);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return elements;
}

/** A member of a JSON object text: its key, where the key's quote opens, and where its value sits. */
export interface Member {
  readonly key: string;
  readonly keyStart: number;
  readonly span: Span;
}

/**
 * The members of the JSON object at `span` (default: the whole of `text`, whitespace around it
 * allowed), one at a time in text order (a repeated key appears each time), with the object's
 * own punctuation checked: braces, quoted keys, colons, commas, and nothing after the closing
 * brace. The values are only skipped, so the object is valid JSON exactly when no `undefined`
 * comes and every value's span parses. `undefined` (the last thing yielded) when the
 * punctuation is wrong. One at a time, so a caller can pause between members of a large
 * object; `ends` (from `scanNestingInSteps`) says where large values end, so they are not
 * scanned again.
 *
 * @example
 * [...eachObjectMember('{"a":1,"b":[2]}')] // [{ key: 'a', keyStart: 1, span: { start: 5, end: 6 } }, { key: 'b', keyStart: 7, span: { start: 11, end: 14 } }]
 */
export function* eachObjectMember(
  text: string,
  span: Span = { start: 0, end: text.length },
  ends?: ValueEnds,
): Generator<Member | undefined> {
  const closes = (brace: number): boolean => brace + 1 === span.end || skipSpace(text, brace + 1) === span.end;
  let i = skipSpace(text, span.start);
  if (text.charCodeAt(i) !== 0x7b) {
    yield undefined;
    return;
  }
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x7d) {
    if (!closes(i)) yield undefined;
    return;
  }
  while (i < span.end) {
    if (text.charCodeAt(i) !== 0x22) {
      yield undefined;
      return;
    }
    const keyStart = i;
    const keyEnd = skipString(text, i);
    const key = strictKeyText(text, i, keyEnd);
    if (key === undefined) {
      yield undefined;
      return;
    }
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a) {
      yield undefined;
      return;
    }
    i = skipSpace(text, i + 1);
    if (i >= span.end) {
      yield undefined;
      return;
    }
    const end = ends?.get(i) ?? skipValue(text, i);
    if (end <= i || end > span.end) {
      yield undefined;
      return;
    }
    yield { key, keyStart, span: { start: i, end } };
    i = skipSpace(text, end);
    const next = text.charCodeAt(i);
    if (next === 0x7d) {
      if (!closes(i)) yield undefined;
      return;
    }
    if (next !== 0x2c) {
      yield undefined;
      return;
    }
    i = skipSpace(text, i + 1);
  }
  yield undefined;
}

/**
 * The elements of the JSON array exactly at `span`, one at a time, with the array's own
 * punctuation checked (brackets and commas); the elements are only skipped (or found in
 * `ends`), as in {@link eachObjectMember}. `undefined` (the last thing yielded) when the
 * punctuation is wrong.
 *
 * @example
 * [...eachArrayElement('[1, {"a":2}]', { start: 0, end: 12 })] // [{ start: 1, end: 2 }, { start: 4, end: 11 }]
 */
export function* eachArrayElement(text: string, span: Span, ends?: ValueEnds): Generator<Span | undefined> {
  if (text.charCodeAt(span.start) !== 0x5b) {
    yield undefined;
    return;
  }
  let i = skipSpace(text, span.start + 1);
  if (text.charCodeAt(i) === 0x5d) {
    if (i + 1 !== span.end) yield undefined;
    return;
  }
  while (i < span.end) {
    const end = ends?.get(i) ?? skipValue(text, i);
    if (end <= i || end > span.end) {
      yield undefined;
      return;
    }
    yield { start: i, end };
    i = skipSpace(text, end);
    const next = text.charCodeAt(i);
    if (next === 0x5d) {
      if (i + 1 !== span.end) yield undefined;
      return;
    }
    if (next !== 0x2c) {
      yield undefined;
      return;
    }
    i = skipSpace(text, i + 1);
  }
  yield undefined;
}

// A key as JSON reads it, or undefined where JSON would refuse it (an unescaped control character).
function strictKeyText(text: string, start: number, end: number): string | undefined {
  if (end > text.length || text.charCodeAt(end - 1) !== 0x22 || end - start < 2) return undefined;
  const raw = text.slice(start + 1, end - 1);
  if (raw.includes('\\')) return keyText(text, start, end);
  return hasJsonControl(raw) ? undefined : raw;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
const JSON_CONTROL = /[\u0000-\u001f]/;
const CONTROLS = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code));

/**
 * Whether `text` holds a character JSON refuses unescaped in a string (U+0000 to U+001F). A
 * long text is searched for each of the 32 with `indexOf`, about twice as fast as the one
 * character-class regex over the steps of a large prompt.
 *
 * @example
 * hasJsonControl('line\nbreak') // false: an escape, not the character
 */
export function hasJsonControl(text: string): boolean {
  if (text.length < 4096) return JSON_CONTROL.test(text);
  for (const control of CONTROLS) if (text.includes(control)) return true;
  return false;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

// From an opening quote to just past the closing one.
function skipString(text: string, from: number): number {
  let i = from + 1;
  while (true) {
    const quote = text.indexOf('"', i);
    if (quote === -1) return text.length;
    let slashes = 0;
    for (let j = quote - 1; j > from && text.charCodeAt(j) === 0x5c; j--) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

function skipValue(text: string, from: number): number {
  const first = text.charCodeAt(from);
  if (first === 0x22) return skipString(text, from);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    let i = from;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i = skipString(text, i);
        continue;
      }
      if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return text.length;
  }
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break;
    i++;
  }
  return i;
}
