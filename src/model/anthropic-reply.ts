/**
 * Reading Anthropic Messages replies: the SSE stream decoder and the JSON reply parser, with
 * usage, stop reasons and the server-side blocks (a hosted search's `server_tool_use` and
 * `tool_search_tool_result`) kept verbatim for the next request. Loaded by
 * `anthropicMessagesClient` with its first request.
 */
import type { ToolCall } from '../message.js';
import { type FinishReason, type ModelEvent, type ModelResponse, ModelStreamError, type ModelUsage } from './client.js';
import { isRecord, parseJsonObject, parseStreamEvent } from './http.js';
import { type ToolNameMap, wireToolCall } from './tool-names.js';
import type { StreamDecoder } from './wire-client.js';

const provider = 'anthropic';
const protocol = 'anthropic-messages';

/** A block the server ran (`server_tool_use`, `mcp_tool_use`, `…_tool_result`): ours to send back, not to run. */
function isServerBlock(block: Record<string, unknown>): boolean {
  const type = String(block.type);
  return type === 'server_tool_use' || type === 'mcp_tool_use' || type.endsWith('_tool_result');
}

/**
 * Map an Anthropic `stop_reason` to a {@link FinishReason}.
 *
 * @example
 * anthropicFinishReason('end_turn', false) // 'stop'
 */
export function anthropicFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length';
  if (reason === 'refusal') return 'content_filter';
  if (hasToolCalls || reason === 'tool_use') return 'tool_calls';
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'stop';
  return 'other';
}

/** Token counts as reported so far; later reports replace earlier ones field by field. */
interface UsageCounts {
  input?: number;
  cacheCreation?: number;
  cacheRead?: number;
  output?: number;
}

function mergeUsage(counts: UsageCounts, value: unknown): void {
  if (!isRecord(value)) return;
  const read = (key: string): number | undefined =>
    typeof value[key] === 'number' ? (value[key] as number) : undefined;
  counts.input = read('input_tokens') ?? counts.input;
  counts.cacheCreation = read('cache_creation_input_tokens') ?? counts.cacheCreation;
  counts.cacheRead = read('cache_read_input_tokens') ?? counts.cacheRead;
  counts.output = read('output_tokens') ?? counts.output;
}

function usageOf(counts: UsageCounts): ModelUsage | undefined {
  if (counts.input === undefined && counts.output === undefined) return undefined;
  return {
    inputTokens: (counts.input ?? 0) + (counts.cacheCreation ?? 0) + (counts.cacheRead ?? 0),
    outputTokens: counts.output ?? 0,
  };
}

/**
 * Incremental decoder for Messages stream events (the `data` of each SSE event; the JSON
 * `type` field names the event). `done` turns true at `message_stop`; `end` finishes a
 * stream that closed without it (an error unless `message_delta` brought a stop reason).
 *
 * @example
 * const decoder = createAnthropicStreamDecoder(createToolNameMap([]))
 * decoder.push('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}')
 * // [{ type: 'text', delta: 'Hi' }]
 */
export function createAnthropicStreamDecoder(names: ToolNameMap): StreamDecoder {
  interface ToolBlock {
    id: string;
    name: string;
    json: string;
    input: unknown;
  }
  const tools = new Map<number, ToolBlock>();
  // Server-side blocks (a hosted search's call and result), kept whole for the next request.
  const kept = new Map<number, { block: Record<string, unknown>; json: string }>();
  const counts: UsageCounts = {};
  let stopReason: string | undefined;
  let calls = 0;
  let done = false;

  const emitTool = (index: number): ModelEvent[] => {
    const block = tools.get(index);
    if (!block) return [];
    tools.delete(index);
    calls++;
    const hasInput = isRecord(block.input) && Object.keys(block.input).length > 0;
    const args = block.json !== '' ? block.json : hasInput ? JSON.stringify(block.input) : '{}';
    return [{ type: 'tool_call', call: wireToolCall(block.id, block.name, args, names) }];
  };

  const emitKept = (index: number): ModelEvent[] => {
    const entry = kept.get(index);
    if (!entry) return [];
    kept.delete(index);
    if (entry.json !== '') entry.block.input = parseJsonObject(entry.json);
    return [{ type: 'provider_content', protocol, item: entry.block }];
  };

  const finish = (): ModelEvent[] => {
    done = true;
    const events = [...tools.keys()].sort((a, b) => a - b).flatMap(emitTool);
    const usage = usageOf(counts);
    if (usage) events.push({ type: 'usage', usage });
    events.push({
      type: 'finish',
      reason: anthropicFinishReason(stopReason, calls > 0),
      ...(stopReason !== undefined ? { providerReason: stopReason } : {}),
    });
    return events;
  };

  return {
    get done() {
      return done;
    },
    push(data) {
      if (done) return [];
      const event = parseStreamEvent(provider, data, 'event');
      const index = typeof event.index === 'number' ? event.index : 0;
      switch (event.type) {
        case 'message_start':
          mergeUsage(counts, isRecord(event.message) ? event.message.usage : undefined);
          return [];
        case 'content_block_start': {
          const block = isRecord(event.content_block) ? event.content_block : {};
          if (block.type === 'tool_use') {
            tools.set(index, {
              id: typeof block.id === 'string' ? block.id : `toolu_${index}`,
              name: typeof block.name === 'string' ? block.name : '',
              json: '',
              input: block.input,
            });
          } else if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
            return [{ type: 'text', delta: block.text }];
          } else if (isServerBlock(block)) {
            kept.set(index, { block: { ...block }, json: '' });
          }
          return [];
        }
        case 'content_block_delta': {
          const delta = isRecord(event.delta) ? event.delta : {};
          if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') {
            return [{ type: 'text', delta: delta.text }];
          }
          if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
            const block = tools.get(index) ?? kept.get(index);
            if (block) block.json += delta.partial_json;
          }
          return [];
        }
        case 'content_block_stop':
          return [...emitTool(index), ...emitKept(index)];
        case 'message_delta': {
          const delta = isRecord(event.delta) ? event.delta : {};
          if (typeof delta.stop_reason === 'string') stopReason = delta.stop_reason;
          mergeUsage(counts, event.usage);
          return [];
        }
        case 'message_stop':
          return finish();
        case 'error': {
          const error = isRecord(event.error) ? event.error : {};
          const type = typeof error.type === 'string' ? error.type : undefined;
          const message = typeof error.message === 'string' ? error.message : data.slice(0, 200);
          throw new ModelStreamError(provider, `error in stream: ${message}`, {
            ...(type !== undefined ? { errorType: type } : {}),
            retryable: type === 'overloaded_error' || type === 'api_error' || type === 'rate_limit_error',
          });
        }
        default:
          // ping, thinking blocks, and event types added later: nothing for us.
          return [];
      }
    },
    end() {
      if (done) return [];
      if (stopReason === undefined) throw new ModelStreamError(provider, 'stream ended before message_stop');
      return finish();
    },
  };
}

/**
 * Read a non-streaming Messages response.
 *
 * @example
 * const reply = parseAnthropicResponse(await response.json(), createToolNameMap([]))
 */
export function parseAnthropicResponse(json: unknown, names: ToolNameMap): ModelResponse {
  if (!isRecord(json) || !Array.isArray(json.content)) {
    throw new ModelStreamError(provider, `unexpected response: ${JSON.stringify(json).slice(0, 200)}`);
  }
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  const items: Record<string, unknown>[] = [];
  json.content.filter(isRecord).forEach((block, index) => {
    if (isServerBlock(block)) items.push(block);
    if (block.type === 'text' && typeof block.text === 'string') text.push(block.text);
    if (block.type === 'tool_use') {
      const id = typeof block.id === 'string' ? block.id : `toolu_${index}`;
      const name = typeof block.name === 'string' ? block.name : '';
      toolCalls.push(wireToolCall(id, name, JSON.stringify(isRecord(block.input) ? block.input : {}), names));
    }
  });
  const counts: UsageCounts = {};
  mergeUsage(counts, json.usage);
  const usage = usageOf(counts);
  const raw = typeof json.stop_reason === 'string' ? json.stop_reason : undefined;
  return {
    text: text.join(''),
    toolCalls,
    ...(items.length > 0 ? { providerContent: { protocol, items } } : {}),
    ...(usage ? { usage } : {}),
    finishReason: anthropicFinishReason(raw, toolCalls.length > 0),
    ...(raw !== undefined ? { providerReason: raw } : {}),
  };
}
