/**
 * OpenAI Chat Completions' side of the server-side tool search (see `round-codec.ts`): calls
 * are `choices[0].message.tool_calls`; the model's turn is an assistant message with those
 * calls; the proxy answers with `role: "tool"` messages. In a stream, text deltas reach the
 * client as they arrive; tool-call deltas are held until the round ends (only then is it
 * known whether the proxy answers them), and every round after the first continues the same
 * completion: the first round's id, no second `role`, one `finish_reason`, usage summed.
 */

import type { Json } from './json-value.js';
import { isObject } from './json-value.js';
import type { CallResult, ModelCall, RoundCodec, StreamCodec, StreamRoundEnd } from './round-codec.js';
import { eventObject } from './round-codec.js';
import type { SseEvent } from './sse-events.js';

function messageOf(answer: Readonly<Json>): Json {
  const choice = Array.isArray(answer.choices) ? answer.choices[0] : undefined;
  return isObject(choice) && isObject(choice.message) ? choice.message : {};
}

function callsOf(toolCalls: unknown): ModelCall[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.filter(isObject).map((call) => {
    const fn = isObject(call.function) ? call.function : {};
    return {
      id: String(call.id ?? ''),
      name: String(fn.name ?? ''),
      args: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
    };
  });
}

const wireCall = (call: ModelCall) => ({
  id: call.id,
  type: 'function',
  function: { name: call.name, arguments: call.args },
});

function assistantTurn(content: string | null, calls: readonly ModelCall[]): string {
  return JSON.stringify({ role: 'assistant', content, tool_calls: calls.map(wireCall) });
}

/**
 * Chat Completions' round codec.
 *
 * @example
 * chatRounds.calls({ choices: [{ message: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'find_tools', arguments: '{"query":"weather"}' } }] } }] })
 * // [{ id: 'c1', name: 'find_tools', args: '{"query":"weather"}' }]
 */
export const chatRounds: RoundCodec = {
  calls: (answer) => callsOf(messageOf(answer).tool_calls),
  turn(answer) {
    const message = messageOf(answer);
    return [
      assistantTurn(
        typeof message.content === 'string' && message.content !== '' ? message.content : null,
        callsOf(message.tool_calls),
      ),
    ];
  },
  usage: (answer) => answer.usage,
  results: (results: readonly CallResult[]) =>
    results.map((result) => JSON.stringify({ role: 'tool', tool_call_id: result.call.id, content: result.content })),
  final(answer, calls, earlier, usage) {
    const choices = Array.isArray(answer.choices)
      ? answer.choices.map((choice) => (isObject(choice) ? { ...choice } : choice))
      : [];
    const choice = choices[0];
    if (isObject(choice)) {
      const message: Json = { ...(isObject(choice.message) ? choice.message : { role: 'assistant' }) };
      const texts = [...earlier.map((before) => messageOf(before).content), message.content].filter(
        (text): text is string => typeof text === 'string' && text !== '',
      );
      message.content = texts.length > 0 ? texts.join('\n\n') : null;
      if (calls.length > 0) message.tool_calls = calls.map(wireCall);
      else delete message.tool_calls;
      choice.message = message;
      choice.finish_reason =
        calls.length > 0 ? 'tool_calls' : choice.finish_reason === 'tool_calls' ? 'stop' : choice.finish_reason;
    }
    return { ...answer, choices, ...(usage !== undefined ? { usage } : {}) };
  },
  stream: () => new ChatStream(),
};

interface HeldCall {
  id: string;
  name: string;
  args: string;
}

class ChatStream implements StreamCodec {
  #template: Json | undefined;
  #round = 0;
  #calls = new Map<number, HeldCall>();
  #text = '';
  #finish: string | undefined;
  #usage: unknown;
  #wantsUsage = false;
  #failed = false;
  /** This round saw its finish_reason or `[DONE]`. */
  #ended = false;

  push(event: SseEvent): SseEvent[] {
    if (event.data.trim() === '[DONE]') {
      this.#ended = true;
      return [];
    }
    const chunk = eventObject(event);
    if (chunk.error !== undefined) {
      this.#failed = true;
      return [event];
    }
    this.#template ??= { ...chunk };
    if (chunk.usage !== undefined && chunk.usage !== null) {
      this.#usage = chunk.usage;
      this.#wantsUsage = true;
    }
    const choice = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : undefined;
    if (!choice) return [];
    if (typeof choice.finish_reason === 'string') {
      this.#finish = choice.finish_reason;
      this.#ended = true;
    }
    const delta: Json = isObject(choice.delta) ? { ...choice.delta } : {};
    for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      if (!isObject(part)) continue;
      const index = typeof part.index === 'number' ? part.index : this.#calls.size;
      const held = this.#calls.get(index) ?? { id: '', name: '', args: '' };
      const fn = isObject(part.function) ? part.function : {};
      if (typeof part.id === 'string') held.id = part.id;
      if (typeof fn.name === 'string') held.name += fn.name;
      if (typeof fn.arguments === 'string') held.args += fn.arguments;
      this.#calls.set(index, held);
    }
    delete delta.tool_calls;
    if (this.#round > 0) delete delta.role;
    if (typeof delta.content === 'string') this.#text += delta.content;
    const keys = Object.keys(delta).filter((key) => delta[key] !== null && delta[key] !== undefined);
    if (keys.length === 0) return [];
    const out: Json = { ...chunk, id: this.#template.id, choices: [{ ...choice, delta, finish_reason: null }] };
    delete out.usage;
    return [{ data: JSON.stringify(out) }];
  }

  end(): StreamRoundEnd {
    const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    return {
      calls,
      turn: [assistantTurn(this.#text === '' ? null : this.#text, calls)],
      usage: this.#usage,
      failed: this.#failed,
      complete: this.#ended,
    };
  }

  next(): void {
    this.#round++;
    this.#ended = false;
    this.#calls = new Map();
    this.#text = '';
    this.#usage = undefined;
  }

  close(calls: readonly ModelCall[], usage: unknown): SseEvent[] {
    const base = { ...(this.#template ?? { object: 'chat.completion.chunk' }) };
    delete base.usage;
    const chunk = (fields: Json): SseEvent => ({ data: JSON.stringify({ ...base, ...fields }) });
    const events: SseEvent[] = [];
    if (calls.length > 0) {
      const parts = calls.map((call, index) => ({ index, ...wireCall(call) }));
      events.push(chunk({ choices: [{ index: 0, delta: { tool_calls: parts }, finish_reason: null }] }));
    }
    const finish =
      calls.length > 0
        ? 'tool_calls'
        : this.#finish === 'tool_calls' || this.#finish === undefined
          ? 'stop'
          : this.#finish;
    events.push(chunk({ choices: [{ index: 0, delta: {}, finish_reason: finish }] }));
    if (this.#wantsUsage) events.push(chunk({ choices: [], usage }));
    events.push({ data: '[DONE]' });
    return events;
  }

  error(type: string, message: string): SseEvent {
    return { data: JSON.stringify({ error: { message, type, param: null, code: type } }) };
  }
}
