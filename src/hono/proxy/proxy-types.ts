/** The shapes a parsed client request takes, shared by the parser and the wire dialects. */
import type { Message } from '../../message.js';
import type { ToolSchema } from '../../registry/schema.js';
import type { Span } from './json-spans.js';

/**
 * The wire protocols the proxy speaks: OpenAI Chat Completions (`openai`), Anthropic Messages
 * (`anthropic`) and OpenAI Responses (`responses`, OpenAI's error shape and upstream).
 */
export type WireProtocol = 'openai' | 'anthropic' | 'responses';

/** One entry of the client's `tools` array. */
export interface ClientTool {
  /** The tool's name; `''` for a typed entry that has none (an `mcp_toolset`, a computer toolset). */
  readonly name: string;
  /** A plain function tool the selectors can rank; other kinds (server tools…) are always kept. */
  readonly selectable: boolean;
  /** Declared with `defer_loading: true`: not rendered in the prompt, reachable through the vendor's tool search. */
  readonly deferred: boolean;
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
  | { readonly kind: 'named'; readonly names: readonly string[]; readonly required: boolean }
  /** OpenAI `allowed_tools`: calls are limited while `tools` stays whole, for the prompt cache. */
  | { readonly kind: 'allowed'; readonly names: readonly string[]; readonly required: boolean };

/** A parsed client request. */
export interface ProxyRequest {
  readonly protocol: WireProtocol;
  /** The body exactly as the client sent it. */
  readonly text: string;
  /** The parsed body. */
  readonly body: Readonly<Record<string, unknown>>;
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
  /** Names of tools a `tool_reference` (or a tool search result) anywhere in the conversation names. */
  readonly referenced: ReadonlySet<string>;
  /** The request uses the vendor's own tool search (a search tool, or tools with `defer_loading`). */
  readonly nativeSearch: boolean;
  /** Anthropic: the client set a `cache_control` breakpoint somewhere; undefined where the protocol has none. */
  readonly breakpoints: boolean | undefined;
  /** The client asked for an event stream (`"stream": true`). */
  readonly stream: boolean;
  /** Where the conversation sits (the `messages` array, or the Responses `input` list or string); undefined without tools. */
  readonly conversationSpan: Span | undefined;
  /** The selection query: the latest user message's text (see `latest-user-text.ts`). */
  readonly query: string | undefined;
  /** The conversation's first user message's text: what a loaded set fixed for the conversation is selected from. */
  readonly firstQuery: string | undefined;
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
  /** The top-level member holding the conversation (`messages`, `input`). */
  readonly conversationKey: string;
  /** Selection query, first query, turn and conversation. */
  context(body: Readonly<Record<string, unknown>>): {
    query: string | undefined;
    firstQuery: string | undefined;
    turn: number;
    conversation: Message[];
  };
}
