import { errorMessage } from '../describe-error.js';
import type { Message, ProviderContent, ToolCall } from '../message.js';
import type { ToolSchema } from '../registry/schema.js';

/**
 * Which wire protocol a client speaks.
 *
 * @example
 * const provider: Provider = 'anthropic'
 */
export type Provider = 'openai' | 'anthropic';

/**
 * How the model may use the advertised tools this turn: `auto` (may call), `required`
 * (must call at least one), `none` (must not call), or `{ name }` (must call that tool).
 * Ignored (and omitted from the wire) when the request advertises no tools.
 *
 * @example
 * const force: ToolChoice = { name: 'get_weather' }
 */
export type ToolChoice = 'auto' | 'required' | 'none' | { readonly name: string };

/**
 * A tool search the provider runs itself over a request's deferred tools (Anthropic's
 * `tool_search_tool_bm25_20251119` / `tool_search_tool_regex_20251119`).
 *
 * @example
 * const request: ModelRequest = { messages, tools: loaded, deferredTools: rest, toolSearch: { hosted: 'bm25' } }
 */
export type HostedToolSearch = 'bm25' | 'regex';

/**
 * How a request's deferred tools are reached: `{ tool }` names the advertised tool that is
 * loopctl's own search (its results' `references` load tools; the Responses protocol renders it
 * as a client-executed `tool_search`), `{ hosted }` asks for the provider's own search.
 *
 * @example
 * const viaOwn: RequestToolSearch = { tool: 'find_tools' }
 */
export type RequestToolSearch = { readonly tool: string } | { readonly hosted: HostedToolSearch };

/**
 * What a client's protocol offers for tool search. Absent: no deferred loading (the loop keeps
 * deferred tools back and widens the request with what `find_tools` finds).
 *
 * @example
 * if (client.toolSearch?.deferLoading) console.log('tools can be declared deferred')
 */
export interface ToolSearchSupport {
  /** Tools can be declared on the wire without being rendered (`defer_loading`). */
  readonly deferLoading: boolean;
  /** Searches the provider hosts. */
  readonly hosted: readonly HostedToolSearch[];
  /** The most tools one request may declare, loaded and deferred together. */
  readonly maxTools?: number;
}

/**
 * One call to the model. `tools` is this turn's selection: an empty list serialises with no
 * `tools` field and no tool choice at all, so a turn without tools costs nothing extra.
 *
 * `stream` only affects {@link ModelClient.complete} (and {@link ModelClient.buildBody}):
 * when true, `complete` reads the SSE stream and assembles the response;
 * {@link ModelClient.stream} always streams.
 *
 * @example
 * const request: ModelRequest = {
 *   messages: [{ role: 'user', content: 'Weather in Oslo?' }],
 *   tools: [weatherSchema],
 *   toolChoice: 'auto',
 *   maxTokens: 512,
 * }
 */
export interface ModelRequest {
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSchema[];
  /**
   * Tools declared deferred: on the wire but not rendered, reachable through `toolSearch`, and
   * callable once a search result in the conversation references them. Only clients whose
   * {@link ModelClient.toolSearch} says `deferLoading` send them; others leave them out.
   */
  readonly deferredTools?: readonly ToolSchema[];
  /** The search that reaches `deferredTools`. */
  readonly toolSearch?: RequestToolSearch;
  readonly toolChoice?: ToolChoice;
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly stream?: boolean;
}

/**
 * Token counts for one call. `inputTokens` counts every prompt token, cached ones included,
 * so the two providers report comparable numbers.
 *
 * @example
 * const usage: ModelUsage = { inputTokens: 812, outputTokens: 41 }
 */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/**
 * Why the model stopped, normalised across providers. `tool_calls` is reported whenever
 * the reply carries tool calls (some OpenAI-compatible servers say `stop` even then).
 *
 * @example
 * if (response.finishReason === 'length') console.warn('reply was truncated')
 */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other';

/**
 * One event of a streamed reply, in wire order. A `tool_call` is emitted once the call is
 * complete (fragments reassembled); `usage` (when the provider reports it) and then
 * `finish` always come last.
 *
 * @example
 * for await (const event of client.stream(request, { signal })) {
 *   if (event.type === 'text') process.stdout.write(event.delta)
 *   if (event.type === 'tool_call') pending.push(event.call)
 * }
 */
export type ModelEvent =
  | { readonly type: 'text'; readonly delta: string }
  | { readonly type: 'tool_call'; readonly call: ToolCall }
  /** Reply content kept verbatim for the protocol to send back (a hosted search's call or result). */
  | {
      readonly type: 'provider_content';
      readonly protocol: ProviderContent['protocol'];
      readonly item: Readonly<Record<string, unknown>>;
    }
  | { readonly type: 'usage'; readonly usage: ModelUsage }
  | {
      readonly type: 'finish';
      readonly reason: FinishReason;
      /** The provider's own word for it, e.g. `end_turn` or `tool_calls`. */
      readonly providerReason?: string;
    };

/**
 * A whole reply: the text, the tool calls (names mapped back to the registered names), and
 * usage when the provider reported it.
 *
 * @example
 * const { text, toolCalls, finishReason } = await client.complete(request)
 */
export interface ModelResponse {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  /** What the reply carried beyond text and calls, to send back with it. */
  readonly providerContent?: ProviderContent;
  readonly usage?: ModelUsage;
  readonly finishReason: FinishReason;
  readonly providerReason?: string;
}

/**
 * Per-call options. Aborting rejects with the signal's `reason` (an `AbortError`
 * `DOMException` unless the caller gave another reason) and cancels the HTTP request.
 *
 * @example
 * const controller = new AbortController()
 * setTimeout(() => controller.abort(), 30_000)
 * await client.complete(request, { signal: controller.signal })
 */
export interface ModelCallOptions {
  readonly signal?: AbortSignal;
}

/**
 * A model behind a wire protocol. Implementations use only `fetch`, `AbortSignal`,
 * `ReadableStream` and `TextDecoder`, so they run in browsers, Workers, Deno and Node.
 *
 * @example
 * const client = openAIChatClient({ model: 'qwen3:4b' })
 * const reply = await client.complete({ messages, tools: selection.tools })
 * for (const call of reply.toolCalls) await dispatch(call)
 */
export interface ModelClient {
  readonly provider: Provider;
  readonly model: string;
  /** Deferred loading and hosted search, when the protocol has them. */
  readonly toolSearch?: ToolSearchSupport;
  /** The exact JSON body the request would send: same request, same bytes. */
  buildBody(request: ModelRequest): string;
  /** Stream the reply. Fails with a {@link ModelError} or the signal's reason. */
  stream(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelEvent>;
  /** The whole reply; streams underneath when `request.stream` is true. */
  complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
}

/**
 * Base of every failure a model client raises (aborts excepted: those reject with the
 * signal's reason). `retryable` says whether the same request may succeed later.
 *
 * @example
 * try { await client.complete(request) } catch (error) {
 *   if (error instanceof ModelError && error.retryable) scheduleLater()
 * }
 */
export class ModelError extends Error {
  override name = 'ModelError';
  readonly provider: Provider;
  readonly retryable: boolean;

  constructor(provider: Provider, message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.provider = provider;
    this.retryable = retryable;
  }
}

/**
 * The provider answered with a non-2xx status. `providerMessage` is the message from the
 * JSON error body (`error.message` for both providers), `body` the raw text.
 *
 * @example
 * catch (error) {
 *   if (error instanceof ModelHttpError && error.status === 401) askForKey(error.providerMessage)
 * }
 */
export class ModelHttpError extends ModelError {
  override name = 'ModelHttpError';
  readonly status: number;
  readonly providerMessage: string | undefined;
  /** The provider's error type, e.g. `rate_limit_error` or `invalid_request_error`. */
  readonly errorType: string | undefined;
  readonly body: string;
  /** What `Retry-After` (or `retry-after-ms`) asked for, in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(init: {
    provider: Provider;
    status: number;
    body: string;
    providerMessage?: string;
    errorType?: string;
    retryable: boolean;
    retryAfterMs?: number;
  }) {
    const detail = init.providerMessage ?? (init.body.slice(0, 200) || 'no body');
    super(init.provider, `${init.provider} HTTP ${init.status}: ${detail}`, init.retryable);
    this.status = init.status;
    this.body = init.body;
    this.providerMessage = init.providerMessage;
    this.errorType = init.errorType;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/**
 * The reply stream could not be read: malformed SSE or JSON, a connection cut mid-stream,
 * a stream that ended early, or an error event the provider sent inside the stream
 * (`errorType` then carries its type, e.g. `overloaded_error`).
 *
 * @example
 * catch (error) {
 *   if (error instanceof ModelStreamError) log.warn('bad stream', error.message)
 * }
 */
export class ModelStreamError extends ModelError {
  override name = 'ModelStreamError';
  readonly errorType: string | undefined;

  constructor(
    provider: Provider,
    message: string,
    options: { cause?: unknown; errorType?: string; retryable?: boolean } = {},
  ) {
    super(provider, message, options.retryable ?? false, { cause: options.cause });
    this.errorType = options.errorType;
  }
}

/**
 * `fetch` itself failed (connection refused, DNS, TLS) before any response arrived.
 * Retryable: the request never reached the model.
 *
 * @example
 * catch (error) {
 *   if (error instanceof ModelNetworkError) console.error('is the server up?', error.cause)
 * }
 */
export class ModelNetworkError extends ModelError {
  override name = 'ModelNetworkError';

  constructor(provider: Provider, cause: unknown) {
    super(provider, `${provider} request failed: ${errorMessage(cause)}`, true, { cause });
  }
}

/**
 * Fold a stream of events into one {@link ModelResponse}.
 *
 * @example
 * const response = await collectResponse(client.stream(request))
 */
export async function collectResponse(events: AsyncIterable<ModelEvent>): Promise<ModelResponse> {
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  let kept: ProviderContent | undefined;
  let usage: ModelUsage | undefined;
  let finishReason: FinishReason = 'other';
  let providerReason: string | undefined;
  for await (const event of events) {
    if (event.type === 'text') text.push(event.delta);
    else if (event.type === 'tool_call') toolCalls.push(event.call);
    else if (event.type === 'provider_content') kept = keepContent(kept, event);
    else if (event.type === 'usage') usage = event.usage;
    else {
      finishReason = event.reason;
      providerReason = event.providerReason;
    }
  }
  return {
    text: text.join(''),
    toolCalls,
    ...(kept ? { providerContent: kept } : {}),
    ...(usage ? { usage } : {}),
    finishReason,
    ...(providerReason !== undefined ? { providerReason } : {}),
  };
}

/**
 * Add one `provider_content` event to what a reply kept so far.
 *
 * @example
 * kept = keepContent(kept, event)
 */
export function keepContent(
  kept: ProviderContent | undefined,
  event: Extract<ModelEvent, { type: 'provider_content' }>,
): ProviderContent {
  return { protocol: event.protocol, items: [...(kept?.items ?? []), event.item] };
}
