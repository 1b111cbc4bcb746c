/** The scripted model server's vocabulary: what a test scripts and what the server records. */

/** The wire protocol a request used, from its path: Chat Completions, Anthropic Messages, the Responses API or Gemini's Interactions API. */
export type WireProvider = 'openai' | 'anthropic' | 'responses' | 'gemini';

/** One tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** Defaults to `call_<n>` (OpenAI) or `toolu_<n>` (Anthropic). */
  readonly id?: string;
  /** The name as it goes on the wire (a client maps it back to the registered name). */
  readonly name: string;
  /** JSON text (sent verbatim, even if malformed) or an object to serialise. */
  readonly arguments: string | Record<string, unknown>;
  /** Stream the arguments in this many fragments (split by code point), or exactly these. */
  readonly chunks?: number | readonly string[];
  /**
   * Responses API and Gemini Interactions: a client-executed `tool_search_call` (the request
   * must declare a `tool_search` tool with `execution: "client"`); `name` is then ignored.
   */
  readonly kind?: 'tool_search';
  /**
   * Send the call even though it names a deferred tool this request has not revealed. A real
   * model cannot see such a tool, so without this the server refuses the script (HTTP 500):
   * set it to play a model that invents the call anyway.
   */
  readonly hallucinated?: boolean;
}

/**
 * Anthropic: the model runs the request's hosted tool search before its text and calls. `query`
 * runs `tool_search_tool_bm25`, `pattern` runs `tool_search_tool_regex` (the request must
 * declare that tool); the server searches the request's deferred tools itself and answers
 * with a `server_tool_use` block and its `tool_search_tool_result` (at most 5 references).
 */
export interface ScriptedHostedSearch {
  readonly id?: string;
  readonly query?: string;
  readonly pattern?: string;
}

/** What went wrong mid-stream, after `afterEvents` wire events were sent. */
export interface ScriptedInterrupt {
  readonly afterEvents: number;
  /**
   * - `hang`: send nothing more; wait until the client closes.
   * - `close`: destroy the connection (a reset mid-stream).
   * - `end`: end the response cleanly without the terminal event (`[DONE]`/`message_stop`).
   * - `malformed`: send a broken event (`data`, or a default truncated JSON), then end.
   * - `provider-error`: send the provider's in-stream error event, then end.
   */
  readonly action: 'hang' | 'close' | 'end' | 'malformed' | 'provider-error';
  /** Raw SSE text for `malformed` (sent verbatim). */
  readonly data?: string;
  /** For `provider-error`: the error type (default `overloaded_error` / `server_error`). */
  readonly errorType?: string;
  readonly message?: string;
}

/** A normal model reply: text and/or tool calls, streamed or as JSON. */
export interface ScriptedMessage {
  readonly kind?: 'message';
  /** The reply text; an array gives the exact stream chunks. */
  readonly text?: string | readonly string[];
  /** Split `text` into this many chunks (by code point). Default: word by word. */
  readonly textChunks?: number;
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Anthropic: a hosted tool search the model runs first (see {@link ScriptedHostedSearch}). */
  readonly hostedSearch?: ScriptedHostedSearch;
  /** OpenAI only: interleave parallel calls' argument fragments (reassembly by index). */
  readonly interleaveToolCalls?: boolean;
  /** Reported usage; default estimated from sizes; `false` sends none. */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number } | false;
  /** The raw finish/stop reason; default `stop`/`tool_calls` or `end_turn`/`tool_use`. */
  readonly finishReason?: string;
  /** Wait before sending headers. */
  readonly delayMs?: number;
  /** Wait between writes while streaming. */
  readonly chunkDelayMs?: number;
  /** Write the SSE bytes in slices of this size (splits lines, events, UTF-8 anywhere). */
  readonly byteChunkSize?: number;
  readonly lineEnding?: '\n' | '\r\n';
  /** Add SSE comment lines (`: keep-alive`) between events. */
  readonly comments?: boolean;
  readonly interrupt?: ScriptedInterrupt;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An HTTP error in the provider's format (body overridable), e.g. a 429 with Retry-After. */
export interface ScriptedError {
  readonly kind: 'error';
  readonly status: number;
  readonly message?: string;
  /** The provider error type; default derived from the status. */
  readonly type?: string;
  /** Replaces the provider-shaped body: a string is sent verbatim, an object as JSON. */
  readonly body?: string | Record<string, unknown>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly delayMs?: number;
}

/** Never answer; the request stays open until the client gives up (recorded as `client-closed`). */
export interface ScriptedHang {
  readonly kind: 'hang';
}

/** Exact bytes: for protocol edge cases the other replies cannot express. */
export interface ScriptedRaw {
  readonly kind: 'raw';
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly chunks: readonly (string | Uint8Array)[];
  readonly chunkDelayMs?: number;
  readonly delayMs?: number;
}

/** Anything the scripted model can answer. */
export type ScriptedReply = ScriptedMessage | ScriptedError | ScriptedHang | ScriptedRaw;

/** How an exchange ended. */
export type ExchangeOutcome = 'completed' | 'client-closed' | 'server-closed';

/** One request as the server received it. */
export interface RecordedRequest {
  readonly index: number;
  readonly method: string;
  /** Path including any query string. */
  readonly path: string;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body's exact bytes. */
  readonly rawBytes: Uint8Array;
  readonly rawBody: string;
  /** The parsed body, or undefined when it was not JSON. */
  readonly json: unknown;
  readonly provider: WireProvider | undefined;
  /** The request asked for SSE (`"stream": true`). */
  readonly stream: boolean;
  /** Set when strict validation rejected the request (the 400's message). */
  readonly rejected: string | undefined;
  /**
   * The tools the model can see in this request (Anthropic, Responses, Gemini): every tool not
   * deferred, plus the deferred ones a search result earlier in the conversation referenced.
   * (Gemini's model also sees deferred tools' names and descriptions, but cannot call them.)
   */
  readonly seenTools: readonly string[];
  /** The tools the request declares deferred (`defer_loading: true`), revealed or not. */
  readonly deferredTools: readonly string[];
  /** Undefined while the exchange is in flight. */
  readonly outcome: ExchangeOutcome | undefined;
  /** Resolves when the exchange ends, with how it ended. */
  readonly settled: Promise<ExchangeOutcome>;
}

/** Options for {@link startScriptedModelServer}. */
export interface ScriptedModelServerOptions {
  /** Answers requests once the queue is empty. */
  readonly script?: (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;
  /** Reject what the real APIs reject (default true). */
  readonly strict?: boolean;
  /** When set, require this key (`Authorization: Bearer` / `x-api-key`), else 401. */
  readonly apiKey?: string;
  /** Keep only the most recent this many requests in `requests` (benchmarks). Default all. */
  readonly keepRequests?: number;
  /** Idle keep-alive connections close after this long. Default Node's (5 s); hosted APIs keep them longer. */
  readonly keepAliveTimeoutMs?: number;
  readonly host?: string;
}

/** A running scripted server. */
export interface ScriptedModelServer {
  /** The origin, e.g. `http://127.0.0.1:53211`. */
  readonly url: string;
  /** `url + '/v1'`: the `baseURL` for `openAIChatClient`, `openAIResponsesClient` and the `openai` SDK. */
  readonly openAIBaseURL: string;
  /** `url`: the `baseURL` for `anthropicMessagesClient`. */
  readonly anthropicBaseURL: string;
  readonly requests: readonly RecordedRequest[];
  /** Replies still queued. */
  readonly pending: number;
  enqueue(...replies: ScriptedReply[]): void;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<readonly RecordedRequest[]>;
  /** Drop queued replies and recorded requests. */
  reset(): void;
  /** Close every connection (hanging ones included) and stop listening. */
  close(): Promise<void>;
}
