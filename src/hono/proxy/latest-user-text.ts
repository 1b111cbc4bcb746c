/**
 * The selection query of a proxied request: the text of the latest user message, never a
 * tool result. In an agent loop the client resends the conversation every turn, with tool
 * results appended after the prompt, so every turn of one task selects from the same prompt
 * and advertises the same tools: the provider's prompt cache prefix holds from turn to turn.
 *
 * - OpenAI: the last `role: "user"` message with text (tool results are `role: "tool"`).
 * - Anthropic: the last `role: "user"` message with text blocks; a user message that carries
 *   only `tool_result` blocks is a continuation, not a prompt.
 * - System prompts and assistant text never count. A user message with no text (an image
 *   alone) is skipped, so an earlier prompt still ranks.
 */
import type { Message, ToolCall } from '../../message.js';

/** Selection query, turn and the conversation as loopctl messages. */
export interface SelectionQuery {
  /** Undefined when no user message has text (selectors then fall open). */
  readonly query: string | undefined;
  /** 1 + the assistant messages after the query's message. */
  readonly turn: number;
  readonly conversation: Message[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Text parts of a content value: a string, or blocks of `{ type: 'text', text }`. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is Json => isObject(part) && part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

function pick(messages: readonly unknown[], conversation: Message[]): SelectionQuery {
  let queryAt = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (isObject(message) && message.role === 'user' && textOf(message.content).trim() !== '') {
      queryAt = i;
      break;
    }
  }
  if (queryAt === -1) return { query: undefined, turn: 1, conversation };
  const query = textOf((messages[queryAt] as Json).content);
  const turn = 1 + messages.slice(queryAt + 1).filter((message) => isObject(message) && message.role === 'assistant').length;
  return { query, turn, conversation };
}

/**
 * The selection query of a Chat Completions body.
 *
 * @example
 * openAISelectionQuery({ messages: [{ role: 'user', content: 'Weather in Oslo?' }] }).query // 'Weather in Oslo?'
 */
export function openAISelectionQuery(body: Readonly<Json>): SelectionQuery {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const conversation: Message[] = [];
  for (const message of messages) {
    if (!isObject(message)) continue;
    const text = textOf(message.content);
    if (message.role === 'system' || message.role === 'developer') conversation.push({ role: 'system', content: text });
    else if (message.role === 'user') conversation.push({ role: 'user', content: text });
    else if (message.role === 'assistant') {
      const calls: ToolCall[] = (Array.isArray(message.tool_calls) ? message.tool_calls : [])
        .filter((call): call is Json => isObject(call) && isObject(call.function))
        .map((call) => {
          const fn = call.function as Json;
          return { id: String(call.id ?? ''), name: String(fn.name ?? ''), arguments: typeof fn.arguments === 'string' ? fn.arguments : '' };
        });
      conversation.push({ role: 'assistant', content: text, ...(calls.length ? { toolCalls: calls } : {}) });
    } else if (message.role === 'tool') {
      conversation.push({ role: 'tool', toolCallId: String(message.tool_call_id ?? ''), name: '', content: text });
    }
  }
  return pick(messages, conversation);
}

/**
 * The selection query of an Anthropic Messages body.
 *
 * @example
 * anthropicSelectionQuery({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather?' }] }] }).query // 'Weather?'
 */
export function anthropicSelectionQuery(body: Readonly<Json>): SelectionQuery {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const conversation: Message[] = [];
  const system = textOf(body.system);
  if (system !== '') conversation.push({ role: 'system', content: system });
  for (const message of messages) {
    if (!isObject(message)) continue;
    const blocks = Array.isArray(message.content) ? message.content.filter(isObject) : [];
    if (message.role === 'user') {
      for (const block of blocks) {
        if (block.type === 'tool_result') {
          conversation.push({ role: 'tool', toolCallId: String(block.tool_use_id ?? ''), name: '', content: textOf(block.content) });
        }
      }
      const text = textOf(message.content);
      if (text !== '') conversation.push({ role: 'user', content: text });
    } else if (message.role === 'assistant') {
      const calls: ToolCall[] = blocks
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({ id: String(block.id ?? ''), name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) }));
      conversation.push({ role: 'assistant', content: textOf(message.content), ...(calls.length ? { toolCalls: calls } : {}) });
    }
  }
  return pick(messages, conversation);
}
