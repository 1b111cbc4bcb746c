import {
  ModelStreamError,
  collectResponse,
  type ModelCallOptions,
  type ModelClient,
  type ModelEvent,
  type ModelRequest,
  type ModelResponse,
  type Provider,
} from './client.js';
import { postModelRequest, readJson, streamFailure, type FetchLike } from './http.js';
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
  headers(streaming: boolean): Record<string, string>;
  body(request: ModelRequest, names: ToolNameMap): Record<string, unknown>;
  decoder(names: ToolNameMap): StreamDecoder;
  parse(json: unknown, names: ToolNameMap): ModelResponse;
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

  const send = (body: string, streaming: boolean, signal: AbortSignal | undefined): Promise<Response> =>
    postModelRequest({
      provider,
      fetch: protocol.fetch,
      url: protocol.url,
      headers: protocol.headers(streaming),
      body,
      signal,
      retry: protocol.retry,
    });

  async function* stream(request: ModelRequest, call: ModelCallOptions = {}): AsyncGenerator<ModelEvent> {
    const { signal } = call;
    const { body, names } = prepare({ ...request, stream: true });
    const response = await send(body, true, signal);
    if (!response.body) throw new ModelStreamError(provider, 'streaming response has no body');
    const decoder = protocol.decoder(names);
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
    buildBody: (request) => prepare(request).body,
    stream,
    async complete(request, call = {}) {
      if (request.stream) return collectResponse(stream(request, call));
      const { signal } = call;
      const { body, names } = prepare({ ...request, stream: false });
      const response = await send(body, false, signal);
      return protocol.parse(await readJson(provider, response, signal), names);
    },
  };
}
