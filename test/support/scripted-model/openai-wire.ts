/** OpenAI Chat Completions on the wire: SSE events, the JSON reply, and strict request validation. */
import type { RecordedRequest } from './types.js';
import type { Plan, WireEvent } from './wire-plan.js';
import { CREATED, isObject, WIRE_NAME } from './wire-plan.js';

export function openAIEvents(plan: Plan, model: string, request: RecordedRequest, interleave: boolean): WireEvent[] {
  const json = isObject(request.json) ? request.json : {};
  const includeUsage = isObject(json.stream_options) && json.stream_options.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): WireEvent => ({
    data: {
      id: `chatcmpl-scripted-${request.index}`,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    },
  });
  const events: WireEvent[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of plan.textChunks) events.push(chunk({ content: piece }));
  const ids = plan.calls.map((call, i) => call.id || `call_${i}`);
  const head = (i: number): WireEvent =>
    chunk({
      tool_calls: [{ index: i, id: ids[i], type: 'function', function: { name: plan.calls[i]?.name, arguments: '' } }],
    });
  const fragment = (i: number, piece: string): WireEvent =>
    chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] });
  if (interleave) {
    for (let i = 0; i < plan.calls.length; i++) events.push(head(i));
    const longest = Math.max(0, ...plan.calls.map((call) => call.fragments.length));
    for (let f = 0; f < longest; f++) {
      plan.calls.forEach((call, i) => {
        const piece = call.fragments[f];
        if (piece !== undefined) events.push(fragment(i, piece));
      });
    }
  } else {
    plan.calls.forEach((call, i) => {
      events.push(head(i));
      for (const piece of call.fragments) events.push(fragment(i, piece));
    });
  }
  events.push(chunk({}, plan.finishReason ?? (plan.calls.length > 0 ? 'tool_calls' : 'stop')));
  if (includeUsage && plan.usage) {
    events.push({
      data: {
        id: `chatcmpl-scripted-${request.index}`,
        object: 'chat.completion.chunk',
        created: CREATED,
        model,
        choices: [],
        usage: openAIUsage(plan.usage),
      },
    });
  }
  events.push({ data: '[DONE]' });
  return events;
}

export function openAIJson(plan: Plan, model: string, index: number): Record<string, unknown> {
  return {
    id: `chatcmpl-scripted-${index}`,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: plan.text === '' && plan.calls.length > 0 ? null : plan.text,
          refusal: null,
          ...(plan.calls.length > 0
            ? {
                tool_calls: plan.calls.map((call, i) => ({
                  id: call.id || `call_${i}`,
                  type: 'function',
                  function: { name: call.name, arguments: call.args },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: plan.finishReason ?? (plan.calls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    ...(plan.usage ? { usage: openAIUsage(plan.usage) } : {}),
  };
}

export function openAIUsage(usage: { inputTokens: number; outputTokens: number }): Record<string, number> {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

export function validateOpenAI(body: Record<string, unknown>): string | undefined {
  if (typeof body.model !== 'string' || body.model === '') return 'you must provide a model parameter';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "'messages' must be a non-empty array";
  if (body.stream_options !== undefined && body.stream !== true) {
    return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  }
  const toolNames = new Set<string>();
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return "'tools' must be an array";
    if (body.tools.length === 0) return "[] is too short - 'tools'";
    for (const tool of body.tools) {
      if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function))
        return 'each tool must be {type: "function", function: {...}}';
      const name = tool.function.name;
      if (typeof name !== 'string' || !WIRE_NAME.test(name)) {
        return `Invalid 'tools[].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'. Got ${JSON.stringify(name)}`;
      }
      if (toolNames.has(name)) return `duplicate tool name ${name}`;
      toolNames.add(name);
      if (tool.function.parameters !== undefined && !isObject(tool.function.parameters))
        return `tool ${name}: parameters must be an object`;
    }
  }
  if (body.tool_choice !== undefined) {
    if (body.tools === undefined)
      return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.";
    const choice = body.tool_choice;
    if (typeof choice === 'string') {
      if (!['auto', 'none', 'required'].includes(choice)) return `Invalid value for 'tool_choice': ${choice}`;
    } else if (
      !isObject(choice) ||
      choice.type !== 'function' ||
      !isObject(choice.function) ||
      typeof choice.function.name !== 'string'
    ) {
      return "Invalid value for 'tool_choice'";
    } else if (!toolNames.has(choice.function.name)) {
      return `tool_choice names ${choice.function.name}, which is not in tools`;
    }
  }
  let awaiting: Set<string> | undefined;
  for (const [i, message] of body.messages.entries()) {
    if (!isObject(message)) return `messages[${i}] must be an object`;
    const role = message.role;
    if (role !== 'tool' && awaiting && awaiting.size > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...awaiting].join(', ')}`;
    }
    if (role === 'system' || role === 'developer' || role === 'user') {
      if (typeof message.content !== 'string' && !Array.isArray(message.content))
        return `messages[${i}].content must be a string or an array`;
      awaiting = undefined;
    } else if (role === 'assistant') {
      awaiting = undefined;
      if (message.tool_calls !== undefined) {
        if (!Array.isArray(message.tool_calls) || message.tool_calls.length === 0)
          return `messages[${i}].tool_calls must be a non-empty array`;
        awaiting = new Set();
        for (const call of message.tool_calls) {
          if (!isObject(call) || typeof call.id !== 'string' || call.type !== 'function' || !isObject(call.function)) {
            return `messages[${i}].tool_calls: each call needs id, type "function" and function`;
          }
          if (typeof call.function.name !== 'string' || !WIRE_NAME.test(call.function.name)) {
            return `messages[${i}].tool_calls: invalid function name ${JSON.stringify(call.function.name)}`;
          }
          if (typeof call.function.arguments !== 'string')
            return `messages[${i}].tool_calls: arguments must be a string`;
          awaiting.add(call.id);
        }
      } else if (typeof message.content !== 'string') {
        return `messages[${i}]: an assistant message needs content or tool_calls`;
      }
    } else if (role === 'tool') {
      if (typeof message.tool_call_id !== 'string') return `messages[${i}].tool_call_id is required`;
      if (!awaiting?.has(message.tool_call_id)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
      awaiting.delete(message.tool_call_id);
      if (typeof message.content !== 'string' && !Array.isArray(message.content))
        return `messages[${i}].content must be a string`;
    } else {
      return `messages[${i}].role: invalid role ${JSON.stringify(role)}`;
    }
  }
  if (awaiting && awaiting.size > 0) {
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...awaiting].join(', ')}`;
  }
  return undefined;
}
