import {
  collectResponse,
  type ModelCallOptions,
  type ModelClient,
  type ModelEvent,
  type ModelRequest,
  type ModelResponse,
  ModelStreamError,
  type Provider,
  type ToolSearchSupport,
} from './client.js';
import { type FetchLike, postModelRequest, readJson, streamFailure } from './http.js';
import type { RetryOptions } from './retry.js';
import { readSseEvents } from './sse.js';
import { requestToolNameMap, type ToolNameMap } from './tool-names.js';

/** Turns a provider's SSE `data` payloads into {@link ModelEvent}s. */
export interface StreamDecoder {
  push(data: string): ModelEvent[];
  end(): ModelEvent[];
  readonly done: boolean;
}

/** What distinguishes one wire protocol from another; the HTTP, SSE and retry plumbing is shared. */
export interface WireProtocol {
  readonly provider: Provider;
  readonly model: string;
  readonly url: string;
  readonly fetch: FetchLike;
  readonly retry?: RetryOptions;
  /** Deferred loading and hosted search, when the protocol has them. */
  readonly toolSearch?: ToolSearchSupport;
  headers(streaming: boolean, request: ModelRequest): Record<string, string>;
  body(request: ModelRequest, names: ToolNameMap): Record<string, unknown>;
  /** May resolve later (a protocol may load its reply reader with the first request). */
  decoder(names: ToolNameMap, request: ModelRequest): StreamDecoder | Promise<StreamDecoder>;
  parse(json: unknown, names: ToolNameMap, request: ModelRequest): ModelResponse | Promise<ModelResponse>;
}

/**
 * A {@link ModelClient} over `fetch` for one wire protocol: deterministic bodies, POST with
 * bounded retry, SSE streaming through the protocol's decoder, whole replies parsed.
 *
 * @example
 * return wireClient({ provider: 'openai', model, url, fetch, headers, body, decoder, parse })
 */
export function wireClient(protocol: WireProtocol): ModelClient {
  const { provider } = protocol;
  const prepare = (request: ModelRequest): { body: string; names: ToolNameMap } => {
    const names = requestToolNameMap(request);
    // A body may hold fields set to undefined (an unset temperature): JSON leaves them out.
    return { body: JSON.stringify(protocol.body(request, names)), names };
  };

  const send = (
    request: ModelRequest,
    body: string,
    streaming: boolean,
    signal: AbortSignal | undefined,
  ): Promise<Response> =>
    postModelRequest({
      provider,
      fetch: protocol.fetch,
      url: protocol.url,
      headers: protocol.headers(streaming, request),
      body,
      signal,
      retry: protocol.retry,
    });

  async function* stream(request: ModelRequest, call: ModelCallOptions = {}): AsyncGenerator<ModelEvent> {
    const { signal } = call;
    const { body, names } = prepare({ ...request, stream: true });
    const response = await send(request, body, true, signal);
    if (!response.body) throw new ModelStreamError(provider, 'streaming response has no body');
    const decoder = await protocol.decoder(names, request);
    try {
      for await (const event of readSseEvents(response.body, { signal })) {
        yield* decoder.push(event.data);
        if (decoder.done) return;
      }
      yield* decoder.end();
    } catch (error) {
      throw streamFailure(provider, error, signal);
    }
  }

  return {
    provider,
    model: protocol.model,
    ...(protocol.toolSearch ? { toolSearch: protocol.toolSearch } : {}),
    buildBody: (request) => prepare(request).body,
    stream,
    async complete(request, call = {}) {
      if (request.stream) return collectResponse(stream(request, call));
      const { signal } = call;
      const { body, names } = prepare({ ...request, stream: false });
      const response = await send(request, body, false, signal);
      return await protocol.parse(await readJson(provider, response, signal), names, request);
    },
  };
}
