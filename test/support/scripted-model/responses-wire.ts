/**
 * The OpenAI Responses API on the wire (`POST …/responses`): SSE events in the order the
 * `openai` SDK's stream accumulator checks (created, in_progress, output items with their
 * parts and deltas, completed), the JSON response, and strict request validation, deferred
 * tools and the client-executed `tool_search` included.
 */
import type { RecordedRequest } from './types.js';
import type { Plan, WireEvent } from './wire-plan.js';
import { CREATED, isObject, WIRE_NAME } from './wire-plan.js';

type Item = Record<string, unknown>;

/** The output items a plan becomes: a message (when there is text), then the calls in order. */
function outputItems(plan: Plan, index: number): Item[] {
  const items: Item[] = [];
  if (plan.text !== '') {
    items.push({
      id: `msg_scripted_${index}`,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: plan.text, annotations: [], logprobs: [] }],
    });
  }
  plan.calls.forEach((call, i) => {
    const callId = call.id || `call_${i}`;
    if (call.kind === 'tool_search') {
      items.push({
        id: `tsc_scripted_${index}_${i}`,
        type: 'tool_search_call',
        call_id: callId,
        execution: 'client',
        arguments: parseArgs(call.args),
        status: 'completed',
      });
    } else {
      items.push({
        id: `fc_scripted_${index}_${i}`,
        type: 'function_call',
        call_id: callId,
        name: call.name,
        arguments: call.args,
        status: 'completed',
      });
    }
  });
  return items;
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args === '' ? '{}' : args);
  } catch {
    return {};
  }
}

function usage(plan: Plan): Item | null {
  if (!plan.usage) return null;
  const { inputTokens, outputTokens } = plan.usage;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
}

/** `completed`, or `incomplete` with its reason (`length` / `max_output_tokens`, `content_filter`). */
function status(plan: Plan): { status: string; incomplete_details: Item | null } {
  const reason = plan.finishReason;
  if (reason === 'length' || reason === 'max_output_tokens')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (reason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

function responseObject(plan: Plan, model: string, request: RecordedRequest, output: Item[], final: boolean): Item {
  const body = isObject(request.json) ? request.json : {};
  const done = status(plan);
  return {
    id: `resp_scripted_${request.index}`,
    object: 'response',
    created_at: CREATED,
    status: final ? done.status : 'in_progress',
    error: null,
    incomplete_details: final ? done.incomplete_details : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    temperature: body.temperature ?? null,
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: null,
    metadata: {},
    usage: final ? usage(plan) : null,
  };
}

export function responsesJson(plan: Plan, model: string, request: RecordedRequest): Item {
  return responseObject(plan, model, request, outputItems(plan, request.index), true);
}

export function responsesEvents(plan: Plan, model: string, request: RecordedRequest): WireEvent[] {
  let sequence = 0;
  const events: WireEvent[] = [];
  const event = (type: string, data: Item): void => {
    events.push({ event: type, data: { type, sequence_number: sequence++, ...data } });
  };
  const items = outputItems(plan, request.index);
  event('response.created', { response: responseObject(plan, model, request, [], false) });
  event('response.in_progress', { response: responseObject(plan, model, request, [], false) });
  items.forEach((item, outputIndex) => {
    const at = { output_index: outputIndex };
    if (item.type === 'message') {
      const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      event('response.output_item.added', { ...at, item: { ...item, status: 'in_progress', content: [] } });
      event('response.content_part.added', { ...at, item_id: item.id, content_index: 0, part });
      for (const delta of plan.textChunks)
        event('response.output_text.delta', { ...at, item_id: item.id, content_index: 0, delta, logprobs: [] });
      event('response.output_text.done', { ...at, item_id: item.id, content_index: 0, text: plan.text, logprobs: [] });
      event('response.content_part.done', {
        ...at,
        item_id: item.id,
        content_index: 0,
        part: { ...part, text: plan.text },
      });
    } else if (item.type === 'function_call') {
      const call = plan.calls.find((c, i) => (c.id || `call_${i}`) === item.call_id);
      event('response.output_item.added', { ...at, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const delta of call?.fragments ?? [String(item.arguments)])
        event('response.function_call_arguments.delta', { ...at, item_id: item.id, delta });
      event('response.function_call_arguments.done', {
        ...at,
        item_id: item.id,
        name: item.name,
        arguments: item.arguments,
      });
    } else {
      event('response.output_item.added', { ...at, item: { ...item, arguments: {}, status: 'in_progress' } });
    }
    event('response.output_item.done', { ...at, item });
  });
  const final = responseObject(plan, model, request, items, true);
  event(final.status === 'completed' ? 'response.completed' : 'response.incomplete', { response: final });
  return events;
}

/** The in-stream error event. */
export function responsesError(message: string, code: string): WireEvent {
  return { event: 'error', data: { type: 'error', code, message, param: null, sequence_number: 0 } };
}

/** What the Responses API rejects with a 400, in its words where they are known. */
export function validateResponses(body: Record<string, unknown>): string | undefined {
  if (typeof body.model !== 'string' || body.model === '') return "Missing required parameter: 'model'.";
  if (body.input === undefined) return "Missing required parameter: 'input'.";
  if (typeof body.input !== 'string' && !Array.isArray(body.input))
    return "Invalid type for 'input': expected a string or an array of input items.";
  if (body.stream_options !== undefined && body.stream !== true)
    return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== 'string')
    return "Invalid type for 'instructions'.";
  const functions = new Set<string>();
  let searchTools = 0;
  let deferred = 0;
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return "Invalid type for 'tools': expected an array.";
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool) || typeof tool.type !== 'string') return `Missing required parameter: 'tools[${i}].type'.`;
      if (tool.type === 'function') {
        if (typeof tool.name !== 'string' || !WIRE_NAME.test(tool.name)) {
          return `Invalid 'tools[${i}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
        }
        if (functions.has(tool.name)) return `Duplicate tool name: '${tool.name}'.`;
        functions.add(tool.name);
        if (tool.parameters !== undefined && tool.parameters !== null && !isObject(tool.parameters))
          return `Invalid type for 'tools[${i}].parameters': expected an object.`;
        if (tool.defer_loading !== undefined && typeof tool.defer_loading !== 'boolean')
          return `Invalid type for 'tools[${i}].defer_loading': expected a boolean.`;
        if (tool.defer_loading === true) deferred++;
      } else if (tool.type === 'tool_search') {
        searchTools++;
        if (tool.execution !== undefined && tool.execution !== 'server' && tool.execution !== 'client')
          return `Invalid value for 'tools[${i}].execution'.`;
        if (tool.parameters !== undefined && tool.parameters !== null && !isObject(tool.parameters))
          return `Invalid type for 'tools[${i}].parameters': expected an object.`;
      }
    }
  }
  if (searchTools > 1) return "Invalid value: 'tools': at most one tool_search tool is allowed.";
  if (deferred > 0 && searchTools === 0)
    return "Invalid value: 'tools.defer_loading'. Deferred tools require tools.tool_search.";
  if (body.tool_choice !== undefined) {
    const choice = body.tool_choice;
    if (body.tools === undefined) return "Tool choice is only allowed when 'tools' are specified.";
    if (typeof choice === 'string') {
      if (!['auto', 'none', 'required'].includes(choice)) return `Invalid value for 'tool_choice': '${choice}'.`;
    } else if (!isObject(choice) || choice.type !== 'function' || typeof choice.name !== 'string') {
      return "Invalid value for 'tool_choice'.";
    } else if (!functions.has(choice.name)) {
      return `Tool choice '${choice.name}' not found in 'tools' parameter.`;
    }
  }
  if (!Array.isArray(body.input)) return undefined;
  const calls = new Set<string>();
  const searches = new Set<string>();
  const answered = new Set<string>();
  for (const [i, item] of body.input.entries()) {
    if (!isObject(item)) return `Invalid type for 'input[${i}]': expected an object.`;
    const type = item.type ?? 'message';
    if (type === 'message') {
      if (!['user', 'assistant', 'system', 'developer'].includes(String(item.role)))
        return `Invalid value: '${String(item.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`;
      if (typeof item.content !== 'string' && !Array.isArray(item.content))
        return `Invalid type for 'input[${i}].content'.`;
    } else if (type === 'function_call') {
      if (typeof item.call_id !== 'string' || item.call_id === '')
        return `Missing required parameter: 'input[${i}].call_id'.`;
      if (typeof item.name !== 'string' || !WIRE_NAME.test(item.name)) return `Invalid 'input[${i}].name'.`;
      if (typeof item.arguments !== 'string') return `Invalid type for 'input[${i}].arguments': expected a string.`;
      calls.add(item.call_id);
    } else if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string' || !calls.has(item.call_id))
        return `No tool call found for function call output with call_id ${String(item.call_id)}.`;
      if (typeof item.output !== 'string' && !Array.isArray(item.output))
        return `Invalid type for 'input[${i}].output'.`;
      answered.add(item.call_id);
    } else if (type === 'tool_search_call') {
      if (typeof item.call_id !== 'string' || item.call_id === '')
        return `Missing required parameter: 'input[${i}].call_id'.`;
      if (item.execution === 'client') searches.add(item.call_id);
    } else if (type === 'tool_search_output') {
      if (item.execution === 'client' && (typeof item.call_id !== 'string' || !searches.has(item.call_id))) {
        return `No tool search call found for tool search output with call_id ${String(item.call_id)}.`;
      }
      if (!Array.isArray(item.tools)) return `Missing required parameter: 'input[${i}].tools'.`;
      for (const [j, tool] of item.tools.entries()) {
        if (!isObject(tool) || tool.type !== 'function' || typeof tool.name !== 'string' || !WIRE_NAME.test(tool.name))
          return `Invalid 'input[${i}].tools[${j}]'.`;
      }
      if (typeof item.call_id === 'string') answered.add(item.call_id);
    }
  }
  for (const id of [...calls, ...searches])
    if (!answered.has(id)) return `No tool output found for function call ${id}.`;
  return undefined;
}
