/**
 * The selection query of a proxied request: the text of the latest user message, never a
 * tool result. In an agent loop the client resends the conversation every turn, with tool
 * results appended after the prompt, so every turn of one task selects from the same prompt
 * and advertises the same tools: the provider's prompt cache prefix holds from turn to turn.
 *
 * - OpenAI: the last `role: "user"` message with text (tool results are `role: "tool"`).
 * - Anthropic: the last `role: "user"` message with text blocks; a user message that carries
 *   only `tool_result` blocks is a continuation, not a prompt.
 * - Responses: the last user `message` item with `input_text` (a string `input` is one user
 *   message); `function_call_output` items are tool results.
 * - System prompts and assistant text never count. A user message with no text (an image
 *   alone) is skipped, so an earlier prompt still ranks.
 *
 * A query longer than {@link MAX_QUERY_CHARS} is clipped to its head and tail: selection reads a
 * prompt, not a pasted document, and the work a request causes stays bounded by what is used.
 */
import type { Message, ToolCall } from '../../message.js';
import type { Json } from './json-value.js';
import { isObject } from './json-value.js';

/** Selection query, turn and the conversation as loopctl messages. */
export interface SelectionQuery {
  /** Undefined when no user message has text (selectors then fall open). */
  readonly query: string | undefined;
  /** The first user message with text: what a loaded set fixed for the whole conversation is selected from. */
  readonly firstQuery: string | undefined;
  /** 1 + the assistant messages after the query's message. */
  readonly turn: number;
  readonly conversation: Message[];
}

/** Longest selection query, in characters; a longer one keeps its first and last halves of this. */
export const MAX_QUERY_CHARS = 4096;

const TEXT_PARTS = new Set(['text', 'input_text', 'output_text']);

/**
 * Text parts of a content value: a string, or blocks of `{ type: 'text' | 'input_text' | 'output_text', text }`.
 *
 * @example
 * textOf([{ type: 'text', text: 'a' }, { type: 'image' }]) // 'a'
 */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (part): part is Json => isObject(part) && TEXT_PARTS.has(part.type as string) && typeof part.text === 'string',
    )
    .map((part) => part.text as string)
    .join('\n');
}

/**
 * A query of at most {@link MAX_QUERY_CHARS}: a longer text keeps its head and its tail (where
 * the ask often sits, after a pasted document), cut at whole code points.
 *
 * @example
 * clipQuery('x'.repeat(10_000)).length // 4097 (head, a newline, tail)
 */
export function clipQuery(text: string): string {
  if (text.length <= MAX_QUERY_CHARS) return text;
  const half = MAX_QUERY_CHARS / 2;
  let head = half;
  if (isLowSurrogate(text.charCodeAt(head))) head--;
  let tail = text.length - half;
  if (isLowSurrogate(text.charCodeAt(tail))) tail++;
  return `${text.slice(0, head)}\n${text.slice(tail)}`;
}

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** Whether `message` is a user message with text (a prompt, not a tool result or an image alone). */
type IsPrompt = (message: unknown) => boolean;

const userWithText: IsPrompt = (message) =>
  isObject(message) && message.role === 'user' && textOf(message.content).trim() !== '';

function pick(
  messages: readonly unknown[],
  conversation: Message[],
  isPrompt: IsPrompt = userWithText,
  isAssistant = isAssistantMessage,
): SelectionQuery {
  let queryAt = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isPrompt(messages[i])) {
      queryAt = i;
      break;
    }
  }
  if (queryAt === -1) return { query: undefined, firstQuery: undefined, turn: 1, conversation };
  const firstAt = messages.findIndex(isPrompt);
  const query = clipQuery(textOf((messages[queryAt] as Json).content));
  const firstQuery = firstAt === queryAt ? query : clipQuery(textOf((messages[firstAt] as Json).content));
  const turn = 1 + messages.slice(queryAt + 1).filter(isAssistant).length;
  return { query, firstQuery, turn, conversation };
}

function isAssistantMessage(message: unknown): boolean {
  return isObject(message) && message.role === 'assistant';
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
          return {
            id: String(call.id ?? ''),
            name: String(fn.name ?? ''),
            arguments: typeof fn.arguments === 'string' ? fn.arguments : '',
          };
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
          conversation.push({
            role: 'tool',
            toolCallId: String(block.tool_use_id ?? ''),
            name: '',
            content: textOf(block.content),
          });
        }
      }
      const text = textOf(message.content);
      if (text !== '') conversation.push({ role: 'user', content: text });
    } else if (message.role === 'assistant') {
      const calls: ToolCall[] = blocks
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({
          id: String(block.id ?? ''),
          name: String(block.name ?? ''),
          arguments: JSON.stringify(block.input ?? {}),
        }));
      conversation.push({
        role: 'assistant',
        content: textOf(message.content),
        ...(calls.length ? { toolCalls: calls } : {}),
      });
    }
  }
  return pick(messages, conversation);
}

/**
 * The selection query of an OpenAI Responses body: `input` as a string (one user message) or
 * a list of items; `instructions` is the system prompt.
 *
 * @example
 * responsesSelectionQuery({ input: 'Weather in Oslo?' }).query // 'Weather in Oslo?'
 */
export function responsesSelectionQuery(body: Readonly<Json>): SelectionQuery {
  const items: unknown[] =
    typeof body.input === 'string'
      ? [{ role: 'user', content: body.input }]
      : Array.isArray(body.input)
        ? body.input
        : [];
  const conversation: Message[] = [];
  const instructions = typeof body.instructions === 'string' ? body.instructions : '';
  if (instructions !== '') conversation.push({ role: 'system', content: instructions });
  for (const item of items) {
    if (!isObject(item)) continue;
    const type = item.type ?? 'message';
    if (type === 'message') {
      const text = textOf(item.content);
      if (item.role === 'system' || item.role === 'developer') conversation.push({ role: 'system', content: text });
      else if (item.role === 'user') conversation.push({ role: 'user', content: text });
      else if (item.role === 'assistant') conversation.push({ role: 'assistant', content: text });
    } else if (type === 'function_call') {
      const call: ToolCall = {
        id: String(item.call_id ?? ''),
        name: String(item.name ?? ''),
        arguments: typeof item.arguments === 'string' ? item.arguments : '',
      };
      conversation.push({ role: 'assistant', content: '', toolCalls: [call] });
    } else if (type === 'function_call_output') {
      conversation.push({
        role: 'tool',
        toolCallId: String(item.call_id ?? ''),
        name: '',
        content: typeof item.output === 'string' ? item.output : textOf(item.output),
      });
    }
  }
  const isPrompt: IsPrompt = (item) => isObject(item) && (item.type ?? 'message') === 'message' && userWithText(item);
  // Each model output item (a message, a call) counts as one assistant step.
  const isAssistant = (item: unknown): boolean =>
    isObject(item) && (item.role === 'assistant' || item.type === 'function_call');
  return pick(items, conversation, isPrompt, isAssistant);
}
