/** The shapes a parsed client request takes, shared by the parser and the two wire dialects. */
import type { Message } from '../../message.js';
import type { ToolSchema } from '../../registry/schema.js';
import type { Span } from './json-spans.js';

/** The two wire protocols the proxy speaks. */
export type WireProtocol = 'openai' | 'anthropic';

/** One entry of the client's `tools` array. */
export interface ClientTool {
  readonly name: string;
  /** A plain function tool the selectors can rank; other kinds (server tools…) are always kept. */
  readonly selectable: boolean;
  /** What selectors see (selectable tools only). */
  readonly schema: ToolSchema | undefined;
  /** The entry's exact text in the request. */
  readonly span: Span;
  /** Anthropic: the entry's `cache_control` value, when it has one. */
  readonly cacheControl: unknown;
}

/** What `tool_choice` asks of the model. */
export type ToolChoice =
  | { readonly kind: 'auto' | 'none' | 'required' }
  /** Specific tools must stay declared (`required` when the model must call one of them). */
  | { readonly kind: 'named'; readonly names: readonly string[]; readonly required: boolean };

/** A parsed client request. */
export interface ProxyRequest {
  readonly protocol: WireProtocol;
  /** The body exactly as the client sent it. */
  readonly text: string;
  /** Where the `tools` array sits; undefined when the request has none. */
  readonly toolsSpan: Span | undefined;
  readonly tools: readonly ClientTool[];
  /** The selectable tools as selectors see them; the same list object for the same tools text. */
  readonly selectable: readonly ToolSchema[];
  /** Approximate token cost of each `tools` entry (UTF-8 bytes / 4), by index. */
  readonly costs: readonly number[];
  readonly toolChoice: ToolChoice;
  /** Names of tools the conversation has already called. */
  readonly called: ReadonlySet<string>;
  /** The selection query: the latest user message's text (see `latest-user-text.ts`). */
  readonly query: string | undefined;
  /** 1 + the assistant turns since that message. */
  readonly turn: number;
  /** The conversation as loopctl messages, for selectors that read it. */
  readonly conversation: readonly Message[];
}

/** The protocol-specific half of parsing. */
export interface WireDialect {
  /** Name, kind and schema of `tools[index]`; throws {@link ProxyRequestError} without a name. */
  tool(entry: unknown, index: number): Omit<ClientTool, 'span'>;
  toolChoice(body: Readonly<Record<string, unknown>>): ToolChoice;
  calledTools(body: Readonly<Record<string, unknown>>): Set<string>;
  /** Selection query, turn and conversation. */
  context(body: Readonly<Record<string, unknown>>): { query: string | undefined; turn: number; conversation: Message[] };
}
