/**
 * The OpenAI Responses API's wire shapes (`POST /v1/responses`) as loopctl reads and writes
 * them: the request body, its input items and tools (deferred loading and the client-executed
 * `tool_search` included), the response's output items, its usage, and the stream events.
 * Types only (no runtime code), written from the `openai` SDK's own definitions (7.55.0) and
 * kept to the fields loopctl uses, so any part of loopctl speaking the protocol (the client,
 * a proxy) shares one vocabulary. Unknown fields pass through untouched.
 */

/** A function tool. `defer_loading`: declared but not rendered until a `tool_search` loads it. */
export interface ResponsesFunctionTool {
  readonly type: 'function';
  readonly name: string;
  readonly description?: string | null;
  readonly parameters: Readonly<Record<string, unknown>> | null;
  readonly strict: boolean | null;
  readonly defer_loading?: boolean;
}

/** The tool search: run by OpenAI (`server`), or by the client (`tool_search_call` → `tool_search_output`). */
export interface ResponsesToolSearchTool {
  readonly type: 'tool_search';
  readonly execution?: 'server' | 'client';
  /** Shown to the model for a client-executed search. */
  readonly description?: string | null;
  /** The arguments' JSON Schema for a client-executed search. */
  readonly parameters?: unknown;
}

/** Any tool a request may carry (others are passed as the caller wrote them). */
export type ResponsesTool =
  | ResponsesFunctionTool
  | ResponsesToolSearchTool
  | (Readonly<Record<string, unknown>> & { readonly type: string });

/** A message input item (`content` a string, or input/output text parts). */
export interface ResponsesMessageItem {
  readonly type: 'message';
  readonly role: 'user' | 'assistant' | 'system' | 'developer';
  readonly content: string | readonly Readonly<Record<string, unknown>>[];
  readonly id?: string;
  readonly status?: 'in_progress' | 'completed' | 'incomplete';
}

/** The model asked for a function call. */
export interface ResponsesFunctionCall {
  readonly type: 'function_call';
  readonly call_id: string;
  readonly name: string;
  /** JSON text. */
  readonly arguments: string;
  readonly id?: string;
  readonly status?: 'in_progress' | 'completed' | 'incomplete';
}

/** A function call's result. */
export interface ResponsesFunctionCallOutput {
  readonly type: 'function_call_output';
  readonly call_id: string;
  readonly output: string;
}

/** The model searched the deferred tools. `arguments` is an object (not JSON text). */
export interface ResponsesToolSearchCall {
  readonly type: 'tool_search_call';
  readonly call_id: string | null;
  readonly arguments: unknown;
  readonly execution: 'server' | 'client';
  readonly id?: string;
  readonly status?: 'in_progress' | 'completed' | 'incomplete';
}

/** A search's answer: the definitions of the tools it loads (injected at the end of the context). */
export interface ResponsesToolSearchOutput {
  readonly type: 'tool_search_output';
  readonly call_id: string | null;
  readonly execution: 'server' | 'client';
  readonly tools: readonly ResponsesTool[];
  readonly id?: string;
  readonly status?: 'in_progress' | 'completed' | 'incomplete';
}

/** One input item. Items loopctl does not model (reasoning, hosted calls) are sent back as they came. */
export type ResponsesInputItem =
  | ResponsesMessageItem
  | ResponsesFunctionCall
  | ResponsesFunctionCallOutput
  | ResponsesToolSearchCall
  | ResponsesToolSearchOutput
  | (Readonly<Record<string, unknown>> & { readonly type: string });

/** How the model may use the tools. */
export type ResponsesToolChoice = 'auto' | 'required' | 'none' | { readonly type: 'function'; readonly name: string };

/** The request body loopctl sends (`store: false`: each request carries the whole conversation). */
export interface ResponsesRequestBody {
  readonly model: string;
  readonly input: readonly ResponsesInputItem[];
  readonly instructions?: string;
  readonly tools?: readonly ResponsesTool[];
  readonly tool_choice?: ResponsesToolChoice;
  readonly max_output_tokens?: number;
  readonly temperature?: number;
  readonly stream?: boolean;
  readonly store?: boolean;
}

/** Token counts; `input_tokens` includes the cached ones. */
export interface ResponsesUsage {
  readonly input_tokens: number;
  readonly input_tokens_details?: { readonly cached_tokens?: number };
  readonly output_tokens: number;
  readonly output_tokens_details?: { readonly reasoning_tokens?: number };
  readonly total_tokens?: number;
}

/** A message output item: its text parts (`output_text`) and refusals. */
export interface ResponsesOutputMessage {
  readonly type: 'message';
  readonly id: string;
  readonly role: 'assistant';
  readonly status: 'in_progress' | 'completed' | 'incomplete';
  readonly content: readonly (
    | { readonly type: 'output_text'; readonly text: string }
    | { readonly type: 'refusal'; readonly refusal: string }
  )[];
}

/** One output item of a response. */
export type ResponsesOutputItem =
  | ResponsesOutputMessage
  | (ResponsesFunctionCall & { readonly id: string })
  | (ResponsesToolSearchCall & { readonly id: string })
  | (ResponsesToolSearchOutput & { readonly id: string })
  | (Readonly<Record<string, unknown>> & { readonly type: string });

/** A response: its status, output items and usage. */
export interface ResponsesResponse {
  readonly id: string;
  readonly object: 'response';
  readonly status?: 'completed' | 'failed' | 'in_progress' | 'cancelled' | 'queued' | 'incomplete';
  readonly output: readonly ResponsesOutputItem[];
  readonly usage?: ResponsesUsage | null;
  readonly incomplete_details?: { readonly reason?: 'max_output_tokens' | 'content_filter' } | null;
  readonly error?: { readonly code?: string; readonly message?: string } | null;
  readonly model?: string;
}

/** The stream events loopctl reads (the `type` of each SSE event's data); others are skipped. */
export type ResponsesStreamEvent =
  | { readonly type: 'response.created' | 'response.in_progress'; readonly response: ResponsesResponse }
  | {
      readonly type: 'response.output_item.added' | 'response.output_item.done';
      readonly output_index: number;
      readonly item: ResponsesOutputItem;
    }
  | {
      readonly type: 'response.output_text.delta';
      readonly output_index: number;
      readonly item_id: string;
      readonly delta: string;
    }
  | {
      readonly type: 'response.function_call_arguments.delta';
      readonly output_index: number;
      readonly item_id: string;
      readonly delta: string;
    }
  | {
      readonly type: 'response.function_call_arguments.done';
      readonly output_index: number;
      readonly item_id: string;
      readonly arguments: string;
    }
  | {
      readonly type: 'response.completed' | 'response.incomplete' | 'response.failed';
      readonly response: ResponsesResponse;
    }
  | { readonly type: 'error'; readonly code: string | null; readonly message: string; readonly param?: string | null };
