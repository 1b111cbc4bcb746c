/** Reading a rewrite answer: tolerant of format, strict about names. */
import { createToolNameMap } from '../model/tool-names.js';

/**
 * What an answer said, read tolerantly: the registered names it named (`names`), an
 * intentional "no tool" (`empty`), or nothing usable (`none`). `unknown` lists names the
 * answer gave explicitly (in a JSON list) that the registry does not hold.
 */
export type ToolAnswer =
  | { readonly kind: 'names'; readonly names: readonly string[]; readonly unknown: readonly string[] }
  | { readonly kind: 'empty' }
  | { readonly kind: 'none'; readonly unknown: readonly string[] };

/** Object fields that carry the list, most specific first. */
const LIST_FIELDS = [
  'tools',
  'tool_names',
  'toolNames',
  'selected_tools',
  'selectedTools',
  'selected',
  'selection',
  'names',
  'tool',
  'name',
];
/** Characters that join parts of a longer identifier (`a.b`, `a-b`, `a/b`, `a:b`). */
const JOINERS = new Set(['.', '-', '/', ':']);
const NAME_CHAR = /[\p{L}\p{N}_]/u;
const SAYS_NONE =
  /^(?:none|nothing|n\/a|no tools?(?: (?:is|are))?(?: (?:needed|required|necessary))?)[\s.!]*$|\bno tools? (?:is |are )?(?:needed|required|necessary)\b/i;

/**
 * Read a selection answer against the registered `known` names. Tolerant of format (a JSON
 * array, a JSON object with a list field, bullets, numbers, commas, prose, code fences,
 * `<think>` blocks) and strict about names: only exact (case-sensitive) registered names
 * count, or a registered name's wire-safe form when it maps back unambiguously. A name
 * inside a longer identifier (`search` in `search_docs`, `math` in `math.factorial`) does
 * not count.
 *
 * @example
 * parseToolAnswer('```json\n["get_weather"]\n```', ['get_weather', 'send_email'])
 * // { kind: 'names', names: ['get_weather'], unknown: [] }
 * parseToolAnswer('[]', ['get_weather'])            // { kind: 'empty' }
 * parseToolAnswer('Sure, happy to help!', ['get_weather']) // { kind: 'none', unknown: [] }
 */
export function parseToolAnswer(answer: string, known: readonly string[]): ToolAnswer {
  const text = cleanAnswer(answer);
  if (text === '') return { kind: 'none', unknown: [] };
  const resolver = nameResolver(known);

  // A list's "none" (`["none"]`) is the model saying no tool, not a tool it invented.
  const listed = jsonNames(text)
    ?.map((candidate) => candidate.trim())
    .filter((candidate) => candidate !== '' && (resolver.resolve(candidate) !== undefined || !saysNone(candidate)));
  let unknown: string[] = [];
  if (listed !== undefined) {
    const names: string[] = [];
    for (const candidate of listed) {
      const name = resolver.resolve(candidate);
      if (name !== undefined) names.push(name);
      else unknown.push(candidate);
    }
    unknown = [...new Set(unknown)];
    if (names.length > 0) return { kind: 'names', names: [...new Set(names)], unknown };
    if (listed.length === 0) return { kind: 'empty' };
    // A list of nothing registered: still look for exact names in the rest of the text.
  }

  const scanned = resolver.scan(text);
  if (scanned.length > 0) return { kind: 'names', names: scanned, unknown };
  if (listed === undefined && saysNone(text)) return { kind: 'empty' };
  return { kind: 'none', unknown };
}

function saysNone(text: string): boolean {
  return SAYS_NONE.test(text.replace(/[`*_"']/g, '').trim());
}

/** Drop reasoning blocks and code-fence markers (keeping the fenced content). */
function cleanAnswer(answer: string): string {
  return answer
    .replace(/<think>[\s\S]*?<\/think>/gi, ' ')
    .replace(/^\s*```[^\n]*$/gm, '')
    .trim();
}

interface NameResolver {
  /** The registered name a candidate denotes, if any. */
  resolve(candidate: string): string | undefined;
  /** Registered names found standing alone in `text`, first occurrence order. */
  scan(text: string): string[];
}

function nameResolver(known: readonly string[]): NameResolver {
  const registered = new Set(known);
  const wire = createToolNameMap(known);
  // Wire forms that differ from the registered name: the small model may echo what it has
  // seen on the wire (`math_factorial`) instead of the registered `math.factorial`.
  const aliases = new Map<string, string>();
  for (const name of registered) {
    const form = wire.toWire(name);
    if (form !== name && !registered.has(form)) aliases.set(form, name);
  }
  const resolve = (candidate: string): string | undefined =>
    registered.has(candidate) ? candidate : aliases.get(candidate);

  return {
    resolve,
    scan(text) {
      const found: { name: string; at: number }[] = [];
      const spellings: [string, string][] = [
        ...[...registered].map((name): [string, string] => [name, name]),
        ...aliases,
      ];
      for (const [spelling, name] of spellings) {
        const at = standaloneIndex(text, spelling);
        if (at >= 0) found.push({ name, at });
      }
      found.sort((a, b) => a.at - b.at);
      return [...new Set(found.map((entry) => entry.name))];
    },
  };
}

/** The first index where `name` stands alone: not glued to name characters or joined into a longer identifier. */
function standaloneIndex(text: string, name: string): number {
  if (name === '') return -1;
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = text[at - 1];
    const after = text[at + name.length];
    const beforeOk =
      before === undefined || (!NAME_CHAR.test(before) && !(JOINERS.has(before) && isNameChar(text[at - 2])));
    const afterOk =
      after === undefined ||
      (!NAME_CHAR.test(after) && !(JOINERS.has(after) && isNameChar(text[at + name.length + 1])));
    if (beforeOk && afterOk) return at;
  }
  return -1;
}

function isNameChar(char: string | undefined): boolean {
  return char !== undefined && NAME_CHAR.test(char);
}

/**
 * The names a JSON answer lists, or undefined when the answer holds no JSON list. The whole
 * text is tried first, then each bracketed span in order (models like to wrap JSON in prose).
 */
function jsonNames(text: string): string[] | undefined {
  const whole = tryJson(text);
  if (whole.ok) return namesIn(whole.value);
  let tries = 0;
  for (let start = findOpen(text, 0); start >= 0 && tries < 8; start = findOpen(text, start + 1), tries++) {
    const end = closingIndex(text, start);
    if (end < 0) continue;
    const span = tryJson(text.slice(start, end + 1));
    if (span.ok) {
      const names = namesIn(span.value);
      if (names !== undefined) return names;
    }
  }
  return undefined;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function findOpen(text: string, from: number): number {
  const square = text.indexOf('[', from);
  const curly = text.indexOf('{', from);
  if (square < 0) return curly;
  if (curly < 0) return square;
  return Math.min(square, curly);
}

/** The index of the bracket closing the one at `start`, skipping JSON strings; -1 if none. */
function closingIndex(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') depth++;
    else if (char === ']' || char === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Strings a JSON value lists as names: an array's strings (or its objects' `name`), an object's list field. */
function namesIn(value: unknown, depth = 0): string[] | undefined {
  if (depth > 3) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) {
    const names: string[] = [];
    for (const item of value) {
      if (typeof item === 'string') names.push(item);
      else if (item !== null && typeof item === 'object') names.push(...(namesIn(item, depth + 1) ?? []));
    }
    return names;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  for (const field of LIST_FIELDS) {
    if (field in record) {
      const names = namesIn(record[field], depth + 1);
      if (names !== undefined) return names;
    }
  }
  // No known field: the first array value is the likeliest list.
  const list = Object.values(record).find(Array.isArray);
  return list === undefined ? undefined : namesIn(list, depth + 1);
}
