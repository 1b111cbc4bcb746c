/** Turning a scripted reply into a plan both wire formats render: text chunks, tool-call fragments, usage. */
import type { RecordedRequest, ScriptedMessage } from './types.js';

export const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export const CREATED = 1_700_000_000;

export interface PlannedCall {
  id: string;
  name: string;
  args: string;
  fragments: string[];
  kind: 'tool_search' | undefined;
}

export interface Plan {
  textChunks: string[];
  text: string;
  calls: PlannedCall[];
  usage: { inputTokens: number; outputTokens: number } | undefined;
  finishReason: string | undefined;
  /** Anthropic: a hosted search's `server_tool_use` and `tool_search_tool_result` blocks, sent first. */
  serverBlocks: Record<string, unknown>[];
}

export function planMessage(
  reply: ScriptedMessage,
  request: RecordedRequest,
  serverBlocks: Record<string, unknown>[] = [],
): Plan {
  const textChunks =
    reply.text === undefined
      ? []
      : typeof reply.text === 'string'
        ? reply.textChunks !== undefined
          ? splitInto(reply.text, reply.textChunks)
          : splitWords(reply.text)
        : [...reply.text];
  const text = textChunks.join('');
  const calls = (reply.toolCalls ?? []).map((call, i) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const fragments =
      call.chunks === undefined
        ? [args]
        : typeof call.chunks === 'number'
          ? splitInto(args, call.chunks)
          : [...call.chunks];
    return { id: call.id ?? '', name: call.name, args: fragments.join(''), fragments, index: i, kind: call.kind };
  });
  const outputChars = text.length + calls.reduce((sum, call) => sum + call.args.length, 0);
  const usage =
    reply.usage === false
      ? undefined
      : (reply.usage ?? {
          inputTokens: Math.ceil(request.rawBody.length / 4),
          outputTokens: Math.max(1, Math.ceil(outputChars / 4)),
        });
  return { textChunks, text, calls, usage, finishReason: reply.finishReason, serverBlocks };
}

export type WireEvent = { event?: string; data: unknown };

export function serialiseEvent(event: WireEvent, le: string): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  return `${event.event ? `event: ${event.event}${le}` : ''}data: ${data}${le}${le}`;
}

/** Split by code point into `count` nearly equal pieces (no empty pieces unless the text is). */
export function splitInto(text: string, count: number): string[] {
  const points = [...text];
  const n = Math.max(1, Math.min(Math.floor(count), points.length));
  const size = points.length / n;
  const pieces: string[] = [];
  for (let i = 0; i < n; i++) pieces.push(points.slice(Math.round(i * size), Math.round((i + 1) * size)).join(''));
  return pieces;
}

/** Word by word, spaces kept with the following word, as streamed models tend to. */
export function splitWords(text: string): string[] {
  if (text === '') return [];
  return text.match(/\s*\S+|\s+$/g) ?? [text];
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
