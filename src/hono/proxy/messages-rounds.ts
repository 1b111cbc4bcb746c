/**
 * Anthropic Messages' side of the server-side tool search (see `round-codec.ts`): calls are
 * `tool_use` blocks; the model's turn is an assistant message with the answer's blocks; the
 * proxy answers with one user message of `tool_result` blocks. In a stream, text and thinking
 * blocks reach the client as they arrive, renumbered so the client sees one message with one
 * run of block indices; `tool_use` blocks are held until the round ends; later rounds send no
 * second `message_start`, and one `message_delta` closes the message with usage summed.
 */
import { argumentsValue } from './body-edits.js';
import type { Json } from './json-value.js';
import { isObject } from './json-value.js';
import type { CallResult, ModelCall, RoundCodec, StreamCodec, StreamRoundEnd } from './round-codec.js';
import { eventObject, sumUsage } from './round-codec.js';
import type { SseEvent } from './sse-events.js';

const blocksOf = (answer: Readonly<Json>): Json[] =>
  Array.isArray(answer.content) ? answer.content.filter(isObject) : [];

const toolUse = (call: ModelCall): Json => ({
  type: 'tool_use',
  id: call.id,
  name: call.name,
  input: objectArgs(call.args),
});

function objectArgs(args: string): unknown {
  const value = argumentsValue(args);
  return isObject(value) ? value : {};
}

function event(type: string, fields: Json): SseEvent {
  return { event: type, data: JSON.stringify({ type, ...fields }) };
}

/**
 * Anthropic Messages' round codec.
 *
 * @example
 * messagesRounds.calls({ content: [{ type: 'tool_use', id: 't1', name: 'find_tools', input: { query: 'weather' } }] })
 * // [{ id: 't1', name: 'find_tools', args: '{"query":"weather"}' }]
 */
export const messagesRounds: RoundCodec = {
  calls: (answer) =>
    blocksOf(answer)
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({
        id: String(block.id ?? ''),
        name: String(block.name ?? ''),
        args: JSON.stringify(block.input ?? {}),
      })),
  turn: (answer) => [JSON.stringify({ role: 'assistant', content: blocksOf(answer) })],
  usage: (answer) => answer.usage,
  results: (results: readonly CallResult[]) => [
    JSON.stringify({
      role: 'user',
      content: results.map((result) => ({
        type: 'tool_result',
        tool_use_id: result.call.id,
        content: result.content,
        ...(result.isError ? { is_error: true } : {}),
      })),
    }),
  ],
  final(answer, calls, earlier, usage) {
    const before = earlier.flatMap((previous) => blocksOf(previous).filter((block) => block.type === 'text'));
    const own = blocksOf(answer).filter((block) => block.type !== 'tool_use');
    const stop = answer.stop_reason;
    return {
      ...answer,
      content: [...before, ...own, ...calls.map(toolUse)],
      stop_reason: calls.length > 0 ? 'tool_use' : stop === 'tool_use' ? 'end_turn' : stop,
      ...(usage !== undefined ? { usage } : {}),
    };
  },
  stream: () => new MessagesStream(),
};

interface RoundBlock {
  block: Json;
  /** Accumulated `input_json_delta` text. */
  json: string;
  /** The client's index, or undefined for a held `tool_use` block. */
  client: number | undefined;
}

class MessagesStream implements StreamCodec {
  #round = 0;
  #next = 0;
  #blocks = new Map<number, RoundBlock>();
  #usage: unknown;
  #stop: unknown;
  #stopSequence: unknown = null;
  #failed = false;
  /** This round saw its `message_stop`. */
  #stopped = false;

  push(sse: SseEvent): SseEvent[] {
    const data = eventObject(sse);
    switch (data.type) {
      case 'message_start': {
        const message = isObject(data.message) ? data.message : {};
        this.#usage = message.usage;
        return this.#round === 0 ? [sse] : [];
      }
      case 'content_block_start': {
        const index = Number(data.index);
        const block = isObject(data.content_block) ? { ...data.content_block } : {};
        const held = block.type === 'tool_use';
        const client = held ? undefined : this.#next++;
        this.#blocks.set(index, { block, json: '', client });
        return held ? [] : [event('content_block_start', { ...data, index: client })];
      }
      case 'content_block_delta': {
        const entry = this.#blocks.get(Number(data.index));
        if (!entry) return [];
        const delta = isObject(data.delta) ? data.delta : {};
        if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string')
          entry.json += delta.partial_json;
        else if (delta.type === 'text_delta' && typeof delta.text === 'string')
          entry.block.text = `${entry.block.text ?? ''}${delta.text}`;
        else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string')
          entry.block.thinking = `${entry.block.thinking ?? ''}${delta.thinking}`;
        else if (delta.type === 'signature_delta' && typeof delta.signature === 'string')
          entry.block.signature = delta.signature;
        return entry.client === undefined ? [] : [event('content_block_delta', { ...data, index: entry.client })];
      }
      case 'content_block_stop': {
        const entry = this.#blocks.get(Number(data.index));
        if (!entry || entry.client === undefined) return [];
        return [event('content_block_stop', { ...data, index: entry.client })];
      }
      case 'message_delta': {
        const delta = isObject(data.delta) ? data.delta : {};
        this.#stop = delta.stop_reason;
        this.#stopSequence = delta.stop_sequence ?? null;
        if (isObject(data.usage)) this.#usage = { ...(isObject(this.#usage) ? this.#usage : {}), ...data.usage };
        return [];
      }
      case 'message_stop':
        this.#stopped = true;
        return [];
      case 'error':
        this.#failed = true;
        return [sse];
      default:
        return [sse]; // ping, and whatever comes next
    }
  }

  end(): StreamRoundEnd {
    const ordered = [...this.#blocks.entries()].sort(([a], [b]) => a - b).map(([, entry]) => entry);
    const content = ordered.map(({ block, json }) =>
      json !== '' || block.type === 'tool_use' || block.type === 'server_tool_use'
        ? { ...block, input: objectArgs(json === '' ? '{}' : json) }
        : block,
    );
    const calls = ordered
      .filter((entry) => entry.block.type === 'tool_use')
      .map(({ block, json }) => ({
        id: String(block.id ?? ''),
        name: String(block.name ?? ''),
        args: json === '' ? '{}' : json,
      }));
    return {
      calls,
      turn: [JSON.stringify({ role: 'assistant', content })],
      usage: this.#usage,
      failed: this.#failed,
      complete: this.#stopped,
    };
  }

  next(): void {
    this.#round++;
    this.#stopped = false;
    this.#blocks = new Map();
    this.#usage = undefined;
  }

  close(calls: readonly ModelCall[], usage: unknown): SseEvent[] {
    const events: SseEvent[] = [];
    for (const call of calls) {
      const index = this.#next++;
      events.push(
        event('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
        }),
      );
      events.push(
        event('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(objectArgs(call.args)) },
        }),
      );
      events.push(event('content_block_stop', { index }));
    }
    const stop =
      calls.length > 0 ? 'tool_use' : this.#stop === 'tool_use' || this.#stop === undefined ? 'end_turn' : this.#stop;
    events.push(
      event('message_delta', {
        delta: { stop_reason: stop, stop_sequence: this.#stopSequence },
        usage: sumUsage(undefined, usage) ?? {},
      }),
    );
    events.push(event('message_stop', {}));
    return events;
  }

  error(type: string, message: string): SseEvent {
    return event('error', { error: { type, message } });
  }
}
