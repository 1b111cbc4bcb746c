/**
 * The forwarded body as edits of the client's text: the `tools` array rewritten, (stable
 * policy) earlier calls of tools the surface does not declare rewritten into `call_tool` form,
 * and (server-side search) the search turns appended to the conversation. Every other byte is
 * the client's. The edits are pure functions of the request, so the same request always gives
 * the same bytes, on any isolate.
 */
import type { BreakpointMove } from './cache-breakpoint.js';
import { withCacheControl } from './cache-breakpoint.js';
import type { Edit } from './json-spans.js';
import { arrayElementSpans } from './json-spans.js';

export type { Edit } from './json-spans.js';

import type { Json } from './json-value.js';
import { isObject } from './json-value.js';
import type { ProxyRequest } from './proxy-protocol.js';

/**
 * `text` with non-overlapping `edits` applied.
 *
 * @example
 * applyEdits('{"a":1}', [{ start: 5, end: 6, text: '2' }]) // '{"a":2}'
 */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  return edits.length === 0 ? text : editedPieces(text, edits).join('');
}

/**
 * {@link applyEdits} as the pieces it joins: slices of `text` and the edits' texts, in order.
 * A large body is encoded from these (`encodeInSteps`) without first being copied into one
 * string.
 *
 * @example
 * editedPieces('{"a":1}', [{ start: 5, end: 6, text: '2' }]) // ['{"a":', '2', '}']
 */
export function editedPieces(text: string, edits: readonly Edit[]): string[] {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const pieces: string[] = [];
  let at = 0;
  for (const edit of sorted) {
    pieces.push(text.slice(at, edit.start), edit.text);
    at = edit.end;
  }
  pieces.push(text.slice(at));
  return pieces;
}

/**
 * The edit that rewrites the `tools` array to the kept entries (each entry's own text, in the
 * client's order), `lead` entries first (the proxy's own tools), and a moved `cache_control`.
 * Undefined when the array stays as it is.
 *
 * @example
 * toolsEdit(request, [2, 7]) // { start, end, text: '[<tools[2]>,<tools[7]>]' }
 */
export function toolsEdit(
  request: ProxyRequest,
  kept: readonly number[],
  move?: BreakpointMove,
  lead: readonly string[] = [],
): Edit | undefined {
  const { text, toolsSpan, tools } = request;
  if (!toolsSpan || (kept.length === tools.length && !move && lead.length === 0)) return undefined;
  const entries = kept.map((index) => {
    const span = tools[index]?.span ?? { start: 0, end: 0 };
    const entry = text.slice(span.start, span.end);
    return move && move.to === index ? withCacheControl(entry, move.cacheControl) : entry;
  });
  return { start: toolsSpan.start, end: toolsSpan.end, text: `[${[...lead, ...entries].join(',')}]` };
}

/** An argument text as a value: the parsed JSON when it is valid, else the text itself. */
export function argumentsValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Edits that rewrite earlier calls of `rewritten` tools (client tools the forwarded surface
 * does not declare) into calls of `call` with `{ name, arguments }`, the form the model used
 * to make them. The upstream then never sees a call to an undeclared tool, and the model sees
 * its own history as it made it. Each entry is rewritten by its protocol's `rewriteCalls`.
 *
 * @example
 * historyEdits(request, new Set(['send_email']), 'call_tool') // one edit per assistant message that called send_email
 */
export function historyEdits(request: ProxyRequest, rewritten: ReadonlySet<string>, call: string): Edit[] {
  const { conversationSpan, body, protocol, text } = request;
  const entries = body[protocol.dialect.conversationKey];
  if (!conversationSpan || !Array.isArray(entries) || rewritten.size === 0) return [];
  let spans: ReturnType<typeof arrayElementSpans> | undefined;
  const edits: Edit[] = [];
  entries.forEach((entry, index) => {
    const changed = isObject(entry) ? protocol.edits.rewriteCalls(entry, rewritten, call) : undefined;
    if (changed === undefined) return;
    spans ??= arrayElementSpans(text, conversationSpan);
    const span = spans[index];
    if (span) edits.push({ start: span.start, end: span.end, text: JSON.stringify(changed) });
  });
  return edits;
}

/**
 * A call's arguments in `call_tool` form: `{ name, arguments }` as JSON text, the arguments
 * parsed when they are valid JSON.
 *
 * @example
 * callToolArguments('send_email', '{"to":"ana"}') // '{"name":"send_email","arguments":{"to":"ana"}}'
 */
export function callToolArguments(name: string, args: string): string {
  return JSON.stringify({ name, arguments: argumentsValue(args) });
}

/**
 * The edit that appends `entries` (JSON texts) to the conversation array (`messages`, or a
 * Responses `input` list).
 *
 * @example
 * appendEdit(request, ['{"role":"tool","tool_call_id":"c1","content":"…"}'])
 */
export function appendEdit(request: ProxyRequest, entries: readonly string[]): Edit | undefined {
  const { conversationSpan, text } = request;
  if (entries.length === 0 || !conversationSpan) return undefined;
  const close = conversationSpan.end - 1;
  const empty = /^\[\s*$/.test(text.slice(conversationSpan.start, close));
  return { start: close, end: close, text: `${empty ? '' : ','}${entries.join(',')}` };
}

/**
 * The edit that appends `text` to the conversation's last message: a text block (a message with
 * parts) or the end of its string content; after a message whose role is `ownMessageAfter`
 * (Chat's tool results), a user message of its own (the results stay as they were). It sits after
 * every breakpoint the client set, so the cached prefix holds. Undefined when there is no last
 * message to carry it.
 *
 * @example
 * tailEdit(request, '[loopctl] More tools …', 'tool')
 */
export function tailEdit(request: ProxyRequest, text: string, ownMessageAfter?: string): Edit | undefined {
  const { conversationSpan, body } = request;
  if (!conversationSpan) return undefined;
  const entries = body.messages;
  if (!Array.isArray(entries) || entries.length === 0) return undefined;
  const last = entries[entries.length - 1];
  if (!isObject(last)) return undefined;
  const spans = arrayElementSpans(request.text, conversationSpan);
  const span = spans[spans.length - 1];
  if (!span || spans.length !== entries.length) return undefined;
  // After tool results (Chat), a message of its own: the results stay byte for byte, so the next
  // request's cached prefix runs through them.
  if (ownMessageAfter !== undefined && last.role === ownMessageAfter) {
    const close = conversationSpan.end - 1;
    return { start: close, end: close, text: `,${JSON.stringify({ role: 'user', content: text })}` };
  }
  let changed: Json;
  if (typeof last.content === 'string') changed = { ...last, content: `${last.content}\n\n${text}` };
  else if (Array.isArray(last.content)) changed = { ...last, content: [...last.content, { type: 'text', text }] };
  else return undefined;
  return { start: span.start, end: span.end, text: JSON.stringify(changed) };
}
