/** Anthropic Messages on the wire: SSE events, the JSON reply, error types and strict request validation. */
import { anthropicReferences } from './deferred-tools.js';
import type { Plan, WireEvent } from './wire-plan.js';
import { isObject, WIRE_NAME } from './wire-plan.js';

/** Hosted tool search tools: type → the name it must carry. */
const HOSTED_SEARCH: Readonly<Record<string, string>> = {
  tool_search_tool_bm25_20251119: 'tool_search_tool_bm25',
  tool_search_tool_bm25: 'tool_search_tool_bm25',
  tool_search_tool_regex_20251119: 'tool_search_tool_regex',
  tool_search_tool_regex: 'tool_search_tool_regex',
};

/** The most tools one request may declare. */
export const ANTHROPIC_MAX_TOOLS = 10_000;

export function anthropicEvents(plan: Plan, model: string, index: number): WireEvent[] {
  const event = (type: string, data: Record<string, unknown>): WireEvent => ({ event: type, data: { type, ...data } });
  const events: WireEvent[] = [
    event('message_start', {
      message: {
        id: `msg_scripted_${index}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        ...(plan.usage ? { usage: { input_tokens: plan.usage.inputTokens, output_tokens: 1 } } : {}),
      },
    }),
    event('ping', {}),
  ];
  let block = 0;
  for (const server of plan.serverBlocks) {
    if (server.type === 'server_tool_use') {
      events.push(event('content_block_start', { index: block, content_block: { ...server, input: {} } }));
      events.push(
        event('content_block_delta', {
          index: block,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(server.input) },
        }),
      );
    } else events.push(event('content_block_start', { index: block, content_block: server }));
    events.push(event('content_block_stop', { index: block }));
    block++;
  }
  if (plan.textChunks.length > 0) {
    events.push(event('content_block_start', { index: block, content_block: { type: 'text', text: '' } }));
    for (const piece of plan.textChunks) {
      events.push(event('content_block_delta', { index: block, delta: { type: 'text_delta', text: piece } }));
    }
    events.push(event('content_block_stop', { index: block }));
    block++;
  }
  plan.calls.forEach((call, i) => {
    const id = call.id || `toolu_${i}`;
    events.push(
      event('content_block_start', {
        index: block,
        content_block: { type: 'tool_use', id, name: call.name, input: {} },
      }),
    );
    for (const piece of ['', ...call.fragments]) {
      events.push(
        event('content_block_delta', { index: block, delta: { type: 'input_json_delta', partial_json: piece } }),
      );
    }
    events.push(event('content_block_stop', { index: block }));
    block++;
  });
  events.push(
    event('message_delta', {
      delta: {
        stop_reason: plan.finishReason ?? (plan.calls.length > 0 ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
      },
      ...(plan.usage ? { usage: { output_tokens: plan.usage.outputTokens } } : {}),
    }),
  );
  events.push(event('message_stop', {}));
  return events;
}

export function anthropicJson(plan: Plan, model: string, index: number): Record<string, unknown> {
  return {
    id: `msg_scripted_${index}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...plan.serverBlocks,
      ...(plan.text !== '' ? [{ type: 'text', text: plan.text }] : []),
      ...plan.calls.map((call, i) => ({
        type: 'tool_use',
        id: call.id || `toolu_${i}`,
        name: call.name,
        input: JSON.parse(call.args === '' ? '{}' : call.args) as unknown,
      })),
    ],
    stop_reason: plan.finishReason ?? (plan.calls.length > 0 ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    ...(plan.usage ? { usage: { input_tokens: plan.usage.inputTokens, output_tokens: plan.usage.outputTokens } } : {}),
  };
}

export function anthropicErrorType(status: number): string {
  const types: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    529: 'overloaded_error',
  };
  return types[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export function validateAnthropic(body: Record<string, unknown>, headers: Record<string, string>): string | undefined {
  if (!headers['anthropic-version']) return 'anthropic-version: header is required';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    return 'max_tokens: Field required';
  }
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system))
    return 'system: must be a string or blocks';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  const toolNames = new Set<string>();
  const serverTools = new Set<string>();
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return 'tools: must be an array';
    if (body.tools.length > ANTHROPIC_MAX_TOOLS)
      return `tools: at most ${ANTHROPIC_MAX_TOOLS} tools may be provided, got ${body.tools.length}`;
    let loaded = 0;
    let deferred = 0;
    for (const [i, tool] of body.tools.entries()) {
      const hosted = isObject(tool) && typeof tool.type === 'string' ? HOSTED_SEARCH[tool.type] : undefined;
      if (hosted !== undefined && isObject(tool)) {
        if (tool.name !== hosted) return `tools.${i}.name: Input should be '${hosted}'`;
        if (tool.defer_loading === true) return `tools.${i}: the tool search tool itself cannot be deferred`;
        if (toolNames.has(hosted)) return `tools: Tool names must be unique.`;
        toolNames.add(hosted);
        serverTools.add(hosted);
        continue;
      }
      if (!isObject(tool) || typeof tool.name !== 'string' || !WIRE_NAME.test(tool.name)) {
        return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
      }
      if (!isObject(tool.input_schema) || tool.input_schema.type !== 'object')
        return `tools.${i}.custom.input_schema: must be an object schema`;
      if (tool.defer_loading !== undefined && typeof tool.defer_loading !== 'boolean')
        return `tools.${i}.custom.defer_loading: Input should be a valid boolean`;
      if (tool.defer_loading === true) deferred++;
      else loaded++;
      if (toolNames.has(tool.name)) return `tools: Tool names must be unique.`;
      toolNames.add(tool.name);
    }
    if (deferred > 0 && loaded === 0)
      return 'tools: at least one tool must not be deferred (every custom tool has defer_loading: true)';
  }
  if (body.tool_choice !== undefined) {
    if (body.tools === undefined)
      return 'tool_choice: may only be specified while providing tools (scripted server, strict)';
    const choice = body.tool_choice;
    if (!isObject(choice) || !['auto', 'any', 'none', 'tool'].includes(String(choice.type)))
      return 'tool_choice: invalid';
    if (choice.type === 'tool' && (typeof choice.name !== 'string' || !toolNames.has(choice.name))) {
      return `tool_choice: tool ${String(choice.name)} not found in tools`;
    }
  }
  let previousToolUses = new Set<string>();
  for (const [i, message] of body.messages.entries()) {
    if (!isObject(message)) return `messages.${i}: must be an object`;
    const role = message.role;
    if (role !== 'user' && role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const isLast = i === body.messages.length - 1;
    const content = message.content;
    const blocks: Record<string, unknown>[] = [];
    if (typeof content === 'string') {
      if (content === '' && !(isLast && role === 'assistant')) {
        return 'messages: all messages must have non-empty content except for the optional final assistant message';
      }
    } else if (Array.isArray(content)) {
      if (content.length === 0 && !(isLast && role === 'assistant')) {
        return 'messages: all messages must have non-empty content except for the optional final assistant message';
      }
      for (const block of content) {
        if (!isObject(block)) return `messages.${i}.content: blocks must be objects`;
        blocks.push(block);
      }
    } else return `messages.${i}.content: must be a string or an array of blocks`;

    const toolUses = new Set<string>();
    const serverUses = new Set<string>();
    let seenOther = false;
    const answered = new Set<string>();
    for (const [j, block] of blocks.entries()) {
      for (const name of anthropicReferences(block)) {
        if (!toolNames.has(name) || serverTools.has(name))
          return `messages.${i}.content.${j}: tool_reference to "${name}", which is not among the request's tools`;
      }
      if (block.type === 'text') {
        if (typeof block.text !== 'string' || block.text === '')
          return `messages.${i}.content.${j}.text: text content blocks must be non-empty`;
        seenOther = true;
      } else if (block.type === 'tool_use') {
        if (role !== 'assistant')
          return `messages.${i}.content.${j}: tool_use blocks are only allowed in assistant messages`;
        if (typeof block.id !== 'string' || typeof block.name !== 'string' || !WIRE_NAME.test(block.name)) {
          return `messages.${i}.content.${j}.tool_use: invalid id or name ${JSON.stringify(block.name)}`;
        }
        if (!isObject(block.input))
          return `messages.${i}.content.${j}.tool_use.input: Input should be a valid dictionary`;
        toolUses.add(block.id);
      } else if (block.type === 'server_tool_use') {
        if (role !== 'assistant')
          return `messages.${i}.content.${j}: server_tool_use blocks are only allowed in assistant messages`;
        if (typeof block.id !== 'string' || typeof block.name !== 'string' || !serverTools.has(block.name)) {
          return `messages.${i}.content.${j}.server_tool_use: ${JSON.stringify(block.name)} is not a server tool of this request`;
        }
        serverUses.add(block.id);
        seenOther = true;
      } else if (block.type === 'tool_search_tool_result') {
        if (role !== 'assistant')
          return `messages.${i}.content.${j}: tool_search_tool_result blocks are only allowed in assistant messages`;
        if (typeof block.tool_use_id !== 'string' || !serverUses.delete(block.tool_use_id)) {
          return `messages.${i}.content.${j}: tool_search_tool_result has no server_tool_use before it with id ${String(block.tool_use_id)}`;
        }
        seenOther = true;
      } else if (block.type === 'tool_result') {
        if (role !== 'user') return `messages.${i}.content.${j}: tool_result blocks are only allowed in user messages`;
        if (seenOther) return `messages.${i}: tool_result blocks must come before any other content`;
        if (typeof block.tool_use_id !== 'string' || !previousToolUses.has(block.tool_use_id)) {
          return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
        answered.add(block.tool_use_id);
      } else {
        seenOther = true;
      }
    }
    if (serverUses.size > 0)
      return `messages.${i}: server_tool_use ids were found without a result after them: ${[...serverUses].join(', ')}`;
    if (previousToolUses.size > 0) {
      const missing = [...previousToolUses].filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
    previousToolUses = toolUses;
  }
  return undefined;
}
