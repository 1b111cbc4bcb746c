/**
 * What a wire protocol supplies to the proxy ({@link ProxyProtocol}), and the shapes a parsed
 * client request takes. Everything that differs between Chat Completions, Messages and
 * Responses is a member of one protocol object (`protocols/*.ts`); the request path
 * (`proxy-pipeline.ts`) only ever asks the request's protocol, so a new vendor is one new
 * object and never a new branch.
 */
import type { Message } from '../../message.js';
import type { ToolSchema } from '../../registry/schema.js';
import type { Edit, Span } from './json-spans.js';
import type { Json } from './json-value.js';
import type { ExampleStepReader } from './learn/example-steps.js';
import type { RoundCodec } from './round-codec.js';

/**
 * The built-in protocols by name: OpenAI Chat Completions (`openai`), Anthropic Messages
 * (`anthropic`) and OpenAI Responses (`responses`, OpenAI's error shape and upstream).
 */
export type WireProtocol = 'openai' | 'anthropic' | 'responses';

/** The upstreams the proxy's settings configure (a base URL and a key each). */
export type UpstreamName = 'openai' | 'anthropic';

/** Where a protocol's requests go: one configured upstream, shared by the protocols it serves. */
export interface ProxyUpstream {
  readonly name: UpstreamName;
  /** The variable that sets its base URL, named when none is configured (a 503). */
  readonly baseURLVariable: string;
  /** What to point at a model server when none answers (`UpstreamUnreachableError`). */
  readonly unreachableHint: string;
  /** The `ProxySettings` keys of its base URL and its key: their declarations name the variable and flag. */
  readonly settings?: {
    readonly baseURL: 'openaiBaseURL' | 'anthropicBaseURL';
    readonly apiKey: 'openaiApiKey' | 'anthropicApiKey';
  };
  /** Put the server's key on the upstream headers (token mode). */
  authorize(headers: Headers, apiKey: string): void;
  /** Whether this upstream caches prompt prefixes unasked (OpenAI's own API does). */
  cachesPrefixes(baseURL: string | undefined): boolean;
}

/** The statuses the proxy answers by itself (see `provider-errors.ts`). */
export type ProxyErrorStatus = 400 | 401 | 403 | 404 | 413 | 415 | 500 | 502 | 503 | 504;

/** What an error the proxy answers may add to the message. */
export interface ErrorDetail {
  readonly param?: string;
  readonly code?: string;
}

/**
 * One wire protocol, whole: its route and upstream, how its requests read (dialect), how its
 * search rounds run (codec), how its bodies are edited, the shape of its errors and of the
 * proxy's own tools, and its caching and continuation rules.
 *
 * @example
 * const protocol: ProxyProtocol = { ...openAIChat, name: 'my-vendor', route: '/v1/my-vendor' }
 * app.route('/', proxyRoutes({ selectors, protocols: [...PROTOCOLS, protocol] }))
 */
export interface ProxyProtocol {
  /** Its name in logs and tests (`openai`, `anthropic`, `responses`). */
  readonly name: string;
  /** Its name for people (the `loopctl serve` banner); default `name`. */
  readonly label?: string;
  /** The proxy's route for it: `POST` there. */
  readonly route: string;
  readonly upstream: ProxyUpstream;
  /** Appended to the upstream's base URL (with the client's query string). */
  readonly upstreamPath: string;
  /**
   * Set on a protocol whose upstream answers `GET /v1/models`: its path there, and whether a
   * client's headers say it speaks this protocol (else the first such protocol with an upstream).
   */
  readonly models?: { readonly path: string; claims?(headers: Headers): boolean };
  /** Request reading: tools, `tool_choice`, calls made, the selection query. */
  readonly dialect: WireDialect;
  /** The server-side search's rounds in this protocol. */
  readonly codec: RoundCodec;
  readonly edits: ProtocolEdits;
  /** The JSON body of an error the proxy answers, in the provider's shape. */
  errorBody(status: ProxyErrorStatus, message: string, detail: ErrorDetail): unknown;
  /** An error as an SSE event in this protocol's stream shape (`type` an error type name). */
  errorEvent(type: string, message: string): string;
  /** A `tools` entry declaring `tool` (the proxy's own `find_tools` / `call_tool`). */
  toolEntry(tool: ToolSchema): Json;
  readonly cache: CacheRules;
  /** The client's `cache_control` breakpoints, where the protocol has them (undefined where not). */
  breakpoints(body: Readonly<Json>, onTools: boolean): boolean | undefined;
  /** Whether the proxy may continue this request with turns of its own (no prefilled answer). */
  canContinue(body: Readonly<Json>): boolean;
  /** A reason of the protocol's own to forward the tools untouched (state held upstream). */
  skip(body: Readonly<Json>): 'previous-response' | undefined;
  /**
   * Its conversation as learning reads it (prompts, calls, results; `learn/example-steps.ts`).
   * A protocol without one is never learned from.
   */
  readonly exampleSteps?: ExampleStepReader;
}

/** How a protocol's conversation is rewritten (see `body-edits.ts` for the shared edits). */
export interface ProtocolEdits {
  /** One conversation entry with calls of `rewritten` tools made calls of `call`; undefined when unchanged. */
  rewriteCalls(entry: Json, rewritten: ReadonlySet<string>, call: string): Json | undefined;
  /** The edit that appends `entries` (JSON texts) to the conversation. */
  append(request: ProxyRequest, entries: readonly string[]): Edit | undefined;
  /** A note after the last message: an edit of the conversation, or entries to append. */
  tail(request: ProxyRequest, text: string): { readonly edit?: Edit; readonly entries: readonly string[] };
}

/** A protocol's prompt-cache rules: what decides the `auto` policy and the tail reveal. */
export interface CacheRules {
  /** With `PROXY_PREFIX_CACHE=auto`: whether the request's prefix is cached upstream. */
  prefixCached(request: ProxyRequest, upstreamCaches: boolean): boolean;
  /** Whether the upstream caches the conversation's messages (a search round re-reads them). */
  conversationCached(request: ProxyRequest): boolean;
  /** Whether the upstream caches by itself up to the end (a tail list would be cached too). */
  cachesTail(request: ProxyRequest): boolean;
  /** Whether a breakpoint on a removed tool moves to a kept one (`cache-breakpoint.ts`). */
  readonly movesBreakpoints: boolean;
}

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
  readonly protocol: ProxyProtocol;
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
