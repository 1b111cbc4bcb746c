/** A plain text content part. */
export interface TextPart {
  type: 'text';
  text: string;
}

/** Content a user message may carry: a string, or text parts. */
export type UserContent = string | readonly TextPart[];

/**
 * A call the model asked for. `arguments` is the JSON text the model produced: it is kept
 * verbatim so a malformed payload can be reported back rather than lost, and so a replayed
 * conversation serialises byte for byte as it arrived.
 */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The outcome of dispatching one {@link ToolCall}. Errors are results, never throws. */
export interface ToolResult {
  toolCallId: string;
  name: string;
  content: string;
  isError: boolean;
  /**
   * Set by a tool search: the registered tools it found, best first. Protocols with deferred
   * loading send them as references (Anthropic `tool_reference` blocks, a Responses
   * `tool_search_output`), which load those tools from the next request on.
   */
  references?: readonly string[];
}

/**
 * Reply content loopctl does not model (a hosted tool search's call and result, say), kept
 * verbatim so the protocol it came from can send it back unchanged. Other protocols skip it.
 *
 * @example
 * const kept: ProviderContent = {
 *   protocol: 'anthropic-messages',
 *   items: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'tool_search_tool_bm25', input: { query: 'weather' } }],
 * }
 */
export interface ProviderContent {
  /** The wire protocol the items came from; only it sends them back. */
  readonly protocol: 'anthropic-messages' | 'openai-responses';
  /** Anthropic content blocks or Responses output items, in the order they arrived. */
  readonly items: readonly Readonly<Record<string, unknown>>[];
}

export interface SystemMessage {
  role: 'system';
  content: string;
}

export interface UserMessage {
  role: 'user';
  content: UserContent;
  /**
   * Set on messages that ride the request view but are not part of the durable transcript
   * (attachments, memories). Selectors see them; the transcript does not keep them.
   */
  transient?: boolean;
}

export interface AssistantMessage {
  role: 'assistant';
  content: string;
  toolCalls?: readonly ToolCall[];
  /** What the reply carried beyond text and calls, for its own protocol to send back (sent first). */
  providerContent?: ProviderContent;
}

export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  name: string;
  content: string;
  isError?: boolean;
  /** A tool search's finds (see {@link ToolResult.references}). */
  references?: readonly string[];
}

/**
 * One message of a conversation: system, user, assistant (optionally with tool calls) or a
 * tool result.
 *
 * @example
 * const conversation: Message[] = [
 *   { role: 'system', content: 'You are terse.' },
 *   { role: 'user', content: 'What is the weather in Oslo?' },
 * ]
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** The text of a message's content, with parts joined by newlines. */
export function messageText(message: Message): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  return content.map((part) => part.text).join('\n');
}
