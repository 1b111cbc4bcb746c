import { Hash64 } from '../hash.js';
import type { Message, ToolCall } from '../message.js';
import type { ToolSchema } from '../registry/schema.js';
import type { ToolChoice } from './client.js';

/**
 * What both providers accept as a tool name.
 *
 * @example
 * WIRE_NAME_PATTERN.test('math.factorial') // false
 */
export const WIRE_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;
const HASH_LENGTH = 8;

/**
 * A reversible mapping between registered tool names and the names sent on the wire.
 *
 * @example
 * const names = createToolNameMap(['math.factorial', 'get_weather'])
 * names.toWire('math.factorial')   // 'math_factorial'
 * names.fromWire('math_factorial') // 'math.factorial'
 */
export interface ToolNameMap {
  /** The wire name for a registered name (a name outside the set is still made valid). */
  toWire(name: string): string;
  /** The registered name for a wire name; unknown wire names come back unchanged. */
  fromWire(wireName: string): string;
}

/**
 * True when `name` can go on the wire as is.
 *
 * @example
 * isValidWireName('get_weather') // true
 */
export function isValidWireName(name: string): boolean {
  return WIRE_NAME_PATTERN.test(name);
}

/**
 * Build the wire mapping for a set of names. Valid names are kept. An invalid ASCII name
 * becomes its readable form (each invalid character replaced with `_`, e.g.
 * `math.factorial` → `math_factorial`) when no other name claims that form; otherwise, and
 * for names with non-ASCII characters or over 64 characters, it becomes a prefix plus `_`
 * and an 8-character hash of the original. The result depends only on the set, never its
 * order, and is collision-free within the set.
 *
 * Build it from every name a request mentions (advertised tools and past calls) so the
 * transcript and the tool list agree.
 *
 * @example
 * const names = createToolNameMap(['a.b', 'a_b'])
 * names.toWire('a_b') // 'a_b' (valid names win)
 * names.toWire('a.b') // 'a_b_' + 8-char hash
 */
export function createToolNameMap(names: Iterable<string>): ToolNameMap {
  const unique = [...new Set(names)];
  const toWire = new Map<string, string>();
  const fromWire = new Map<string, string>();
  const claim = (name: string, wire: string): void => {
    toWire.set(name, wire);
    fromWire.set(wire, name);
  };

  for (const name of unique) if (isValidWireName(name)) claim(name, name);

  const invalid = unique.filter((name) => !isValidWireName(name)).sort(compareCodeUnits);
  const readableCount = new Map<string, number>();
  for (const name of invalid) {
    const readable = readableForm(name);
    if (readable !== undefined) readableCount.set(readable, (readableCount.get(readable) ?? 0) + 1);
  }

  for (const name of invalid) {
    const readable = readableForm(name);
    let wire =
      readable !== undefined && readableCount.get(readable) === 1 && !fromWire.has(readable)
        ? readable
        : hashedForm(name, 0);
    for (let salt = 1; fromWire.has(wire); salt++) wire = hashedForm(name, salt);
    claim(name, wire);
  }

  return {
    toWire: (name) => toWire.get(name) ?? (isValidWireName(name) ? name : hashedForm(name, 0)),
    fromWire: (wireName) => fromWire.get(wireName) ?? wireName,
  };
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sanitise(name: string): string {
  let out = '';
  for (const char of name) out += /^[a-zA-Z0-9_-]$/.test(char) ? char : '_';
  return out;
}

/** The hash-free form, offered only when replacing characters loses little (ASCII, fits). */
function readableForm(name: string): string | undefined {
  if (name === '' || name.length > MAX_LENGTH || !/^[\x20-\x7e]*$/.test(name)) return undefined;
  return sanitise(name);
}

function hashedForm(name: string, salt: number): string {
  const hash = hash36(salt === 0 ? name : `${name}\u0000${salt}`);
  const prefix = sanitise(name).slice(0, MAX_LENGTH - HASH_LENGTH - 1) || 'tool';
  return `${prefix}_${hash}`;
}

/** The shared 64-bit hash, cut to 8 base-36 characters: short, stable across runtimes. */
function hash36(text: string): string {
  const [hi, lo] = new Hash64().update(text).digestWords();
  const value = 4294967296 * (2097151 & hi) + lo; // 53 bits: exact in a double
  return (value % 36 ** HASH_LENGTH).toString(36).padStart(HASH_LENGTH, '0');
}

/**
 * Throw when a forced tool is not among the advertised ones: the provider would reject the
 * request with a less helpful 400.
 *
 * @example
 * assertAdvertised('get_weather', request.tools)
 */
export function assertAdvertised(name: string, tools: readonly ToolSchema[]): void {
  if (!tools.some((tool) => tool.name === name)) {
    throw new TypeError(`toolChoice names '${name}', which is not among this request's tools`);
  }
}

/**
 * The mapping for one request: every name it advertises, declares deferred, forces, or
 * mentions in past calls and search results, so a call made on an earlier turn (perhaps with a tool no longer selected) keeps a
 * consistent wire name in the transcript.
 *
 * @example
 * const names = requestToolNameMap({ messages, tools: selection.tools })
 */
export function requestToolNameMap(request: {
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSchema[];
  readonly deferredTools?: readonly ToolSchema[];
  readonly toolChoice?: ToolChoice;
}): ToolNameMap {
  const names: string[] = request.tools.map((tool) => tool.name);
  for (const tool of request.deferredTools ?? []) names.push(tool.name);
  for (const message of request.messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) names.push(call.name);
    else if (message.role === 'tool') names.push(message.name, ...(message.references ?? []));
  }
  if (typeof request.toolChoice === 'object') names.push(request.toolChoice.name);
  return createToolNameMap(names);
}

/**
 * A call as it came off the wire, its name mapped back; an argument-less call may arrive as
 * `''`, which means `{}`.
 *
 * @example
 * wireToolCall('call_1', 'math_factorial', '', names) // { id: 'call_1', name: 'math.factorial', arguments: '{}' }
 */
export function wireToolCall(id: string, wireName: string, args: string, names: ToolNameMap): ToolCall {
  return { id, name: names.fromWire(wireName), arguments: args === '' ? '{}' : args };
}
