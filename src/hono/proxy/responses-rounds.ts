/**
 * OpenAI Responses' side of the server-side tool search (see `round-codec.ts`): calls are
 * `function_call` output items; the model's turn is its output items; the proxy answers with
 * `function_call_output` items. In a stream, every item but a function call reaches the client
 * as it arrives; function calls are held until the round ends. Later rounds continue the first
 * round's response: no second `response.created`, output indices and sequence numbers run on,
 * and one `response.completed` lists exactly the items the client saw, usage summed.
 */

import type { Json } from './json-value.js';
import { isObject } from './json-value.js';
import type { CallResult, ModelCall, RoundCodec, StreamCodec, StreamRoundEnd } from './round-codec.js';
import { eventObject } from './round-codec.js';
import type { SseEvent } from './sse-events.js';

const outputOf = (answer: Readonly<Json>): Json[] =>
  Array.isArray(answer.output) ? answer.output.filter(isObject) : [];

const callOf = (item: Json): ModelCall => ({
  id: String(item.call_id ?? ''),
  name: String(item.name ?? ''),
  args: typeof item.arguments === 'string' ? item.arguments : '{}',
});

/** The output with function calls replaced by `calls` (matched by `call_id`), the others dropped. */
function withCalls(output: readonly Json[], calls: readonly ModelCall[]): Json[] {
  const byId = new Map(calls.map((call) => [call.id, call]));
  return output.flatMap((item) => {
    if (item.type !== 'function_call') return [item];
    const call = byId.get(String(item.call_id ?? ''));
    return call ? [{ ...item, name: call.name, arguments: call.args }] : [];
  });
}

/**
 * Responses' round codec.
 *
 * @example
 * responsesRounds.calls({ output: [{ type: 'function_call', call_id: 'c1', name: 'find_tools', arguments: '{"query":"weather"}' }] })
 * // [{ id: 'c1', name: 'find_tools', args: '{"query":"weather"}' }]
 */
export const responsesRounds: RoundCodec = {
  calls: (answer) =>
    outputOf(answer)
      .filter((item) => item.type === 'function_call')
      .map(callOf),
  turn: (answer) => outputOf(answer).map((item) => JSON.stringify(item)),
  usage: (answer) => answer.usage,
  results: (results: readonly CallResult[]) =>
    results.map((result) =>
      JSON.stringify({ type: 'function_call_output', call_id: result.call.id, output: result.content }),
    ),
  final(answer, calls, earlier, usage) {
    const before = earlier.flatMap((previous) => outputOf(previous).filter((item) => item.type === 'message'));
    return {
      ...answer,
      output: [...before, ...withCalls(outputOf(answer), calls)],
      ...(usage !== undefined ? { usage } : {}),
    };
  },
  stream: () => new ResponsesStream(),
};

const LIFECYCLE_START = new Set(['response.created', 'response.in_progress', 'response.queued']);
const LIFECYCLE_END = new Set(['response.completed', 'response.incomplete', 'response.failed']);

class ResponsesStream implements StreamCodec {
  #round = 0;
  #sequence = 0;
  #next = 0;
  #template: Json | undefined;
  /** Upstream output index → the client's, for items the client sees. */
  #indices = new Map<number, number>();
  /** Function calls of this round, by upstream output index. */
  #held = new Map<number, Json>();
  /** Every item the client saw, by its index, in its latest state. */
  #seen = new Map<number, Json>();
  /** The items a final call may come from (its id is kept), by call id. */
  #callItems = new Map<string, Json>();
  #last: Json | undefined;
  #lastType = 'response.completed';
  #failed = false;
  /** This round saw its lifecycle end (`response.completed`, `.incomplete`, `.failed`). */
  #ended = false;

  #emit(data: Json): SseEvent {
    const type = String(data.type);
    return { event: type, data: JSON.stringify({ ...data, sequence_number: this.#sequence++ }) };
  }

  push(sse: SseEvent): SseEvent[] {
    const data = eventObject(sse);
    const type = String(data.type ?? sse.event ?? '');
    if (LIFECYCLE_START.has(type)) {
      if (this.#round > 0) return [];
      if (isObject(data.response)) this.#template ??= data.response;
      return [this.#emit(data)];
    }
    if (LIFECYCLE_END.has(type)) {
      if (isObject(data.response)) this.#last = data.response;
      this.#lastType = type;
      this.#ended = true;
      if (type === 'response.failed') this.#failed = true;
      return this.#failed ? [this.#emit({ ...data, response: this.#merged(outputOf(data.response as Json)) })] : [];
    }
    if (type === 'error') {
      this.#failed = true;
      return [this.#emit(data)];
    }
    if (typeof data.output_index !== 'number') return [this.#emit(data)];
    const upstream = data.output_index;
    const item = isObject(data.item) ? data.item : undefined;
    if (type === 'response.output_item.added' && item?.type === 'function_call') {
      this.#held.set(upstream, item);
      return [];
    }
    if (this.#held.has(upstream)) {
      if (type === 'response.output_item.done' && item) this.#held.set(upstream, item);
      return [];
    }
    let index = this.#indices.get(upstream);
    if (index === undefined) {
      index = this.#next++;
      this.#indices.set(upstream, index);
    }
    if (item && (type === 'response.output_item.added' || type === 'response.output_item.done'))
      this.#seen.set(index, item);
    return [this.#emit({ ...data, output_index: index })];
  }

  #merged(extra: readonly Json[] = []): Json {
    const output = [...this.#seen.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
    return {
      ...(this.#last ?? {}),
      ...(this.#template ? { id: this.#template.id, created_at: this.#template.created_at } : {}),
      output: [...output, ...extra],
    };
  }

  end(): StreamRoundEnd {
    const held = [...this.#held.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
    for (const item of held) this.#callItems.set(String(item.call_id ?? ''), item);
    const output = this.#last ? outputOf(this.#last) : held;
    return {
      calls: held.map(callOf),
      turn: output.map((item) => JSON.stringify(item)),
      usage: this.#last?.usage,
      failed: this.#failed,
      complete: this.#ended,
    };
  }

  next(): void {
    this.#round++;
    this.#ended = false;
    this.#indices = new Map();
    this.#held = new Map();
    this.#last = undefined;
  }

  close(calls: readonly ModelCall[], usage: unknown): SseEvent[] {
    const events: SseEvent[] = [];
    for (const call of calls) {
      const index = this.#next++;
      const origin = this.#callItems.get(call.id) ?? {};
      const id = typeof origin.id === 'string' ? origin.id : `fc_${call.id}`;
      const start = {
        ...origin,
        type: 'function_call',
        id,
        call_id: call.id,
        name: call.name,
        arguments: '',
        status: 'in_progress',
      };
      const done = { ...start, arguments: call.args, status: 'completed' };
      events.push(this.#emit({ type: 'response.output_item.added', output_index: index, item: start }));
      events.push(
        this.#emit({
          type: 'response.function_call_arguments.delta',
          item_id: id,
          output_index: index,
          delta: call.args,
        }),
      );
      events.push(
        this.#emit({
          type: 'response.function_call_arguments.done',
          item_id: id,
          output_index: index,
          arguments: call.args,
        }),
      );
      events.push(this.#emit({ type: 'response.output_item.done', output_index: index, item: done }));
      this.#seen.set(index, done);
    }
    const response = {
      ...this.#merged(),
      ...(usage !== undefined ? { usage } : {}),
      status: this.#lastType === 'response.incomplete' ? 'incomplete' : 'completed',
    };
    events.push(this.#emit({ type: this.#lastType, response }));
    return events;
  }

  error(type: string, message: string): SseEvent {
    return this.#emit({ type: 'error', code: type, message, param: null });
  }
}
