/**
 * The forward and answer steps of the request path: one upstream call under the first-byte
 * timeout (its body under the idle timeout), the search rounds when the plan has them, and the
 * client's answer: the upstream's JSON or event stream, its headers less hop-by-hop ones, the
 * outcome headers, and every failure in the protocol's own error shape (an error event once a
 * stream's status has been sent).
 */
import { errorMessage } from '../../describe-error.js';
import { abortWith } from '../../limits/abort-with.js';
import { relayEvents } from './event-relay.js';
import { clientHeaders, upstreamHeaders } from './forward-headers.js';
import { providerError } from './provider-errors.js';
import type { Outcome } from './proxy-outcome.js';
import { reportOutcome } from './proxy-outcome.js';
import type { RoundsPlan } from './proxy-plan.js';
import { redactedError } from './redacted-error.js';
import type { RequestContext } from './request-context.js';
import { clientBody } from './response-body.js';
import type { SearchRounds } from './search-rounds.js';
import { jsonRounds, streamRounds } from './search-rounds.js';
import { KEEP_ALIVE } from './sse-events.js';
import { idleLimited, UpstreamIdleTimeout } from './upstream-idle.js';
import { UpstreamUnreachableError } from './upstream-unreachable.js';
import { FirstByteTimeout, firstByteWithin, settledWithin, ticksUntil } from './upstream-wait.js';

/** How one request goes upstream. */
export interface Forwarding {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  /** Bytes for a large body (encoded in steps), else the text. */
  readonly body: string | Uint8Array<ArrayBuffer> | undefined;
  readonly outcome: Outcome | undefined;
  readonly stream: boolean;
  /** Set when the proxy answers the model's searches. */
  readonly rounds?: RoundsPlan;
}

/** One request's upstream calls: their URL and method, and the link that ends them. */
interface Calls {
  readonly ctx: RequestContext;
  readonly forwarding: Forwarding;
  readonly controller: AbortController;
}

const EVENT_STREAM = /^\s*text\/event-stream/i;

/**
 * Forward the request and answer the client.
 *
 * @example
 * return forward(ctx, { url, method: 'POST', body, outcome, stream: request.stream })
 */
export async function forward(ctx: RequestContext, forwarding: Forwarding): Promise<Response> {
  const { outcome, stream } = forwarding;
  // Our own link to the upstream calls: the client leaving, or the client's stream being cancelled, ends them.
  const controller = new AbortController();
  abortWith(ctx.signal, controller);
  const calls: Calls = { ctx, forwarding, controller };
  const rounds = forwarding.rounds ? { ...forwarding.rounds, send: (next: string) => call(calls, next) } : undefined;
  const pending = call(calls, forwarding.body);
  pending.catch(() => undefined);
  if (stream) {
    const early = await settledWithin(pending, ctx.config.keepAliveMs);
    if (early === 'waiting') return committedStream(calls, outcome, pending, rounds);
    if ('error' in early) return upstreamFailure(ctx, early.error, controller.signal);
    return answer(calls, early.value, outcome, rounds);
  }
  let upstream: Response;
  try {
    upstream = await pending;
  } catch (error) {
    return upstreamFailure(ctx, error, controller.signal);
  }
  return answer(calls, upstream, outcome, rounds);
}

/** One upstream call under the first-byte timeout, its body under the idle timeout. */
function call({ ctx, forwarding, controller }: Calls, body: Forwarding['body']): Promise<Response> {
  const { config, protocol, raw } = ctx;
  const { upstream } = protocol;
  const sent = upstreamHeaders(raw.headers, upstream, config.auth, config.apiKeys[upstream.name]);
  // fetch would label a string body text/plain; the body is JSON whatever the client said.
  if (body !== undefined && !sent.has('content-type')) sent.set('content-type', 'application/json');
  return firstByteWithin(config.firstByteMs, controller.signal, async (linked) =>
    redactedError(
      idleLimited(
        await config.fetch(forwarding.url, {
          method: forwarding.method,
          headers: sent,
          ...(body !== undefined ? { body } : {}),
          signal: linked,
          redirect: 'manual',
        }),
        config.idleMs,
      ),
      config.secrets,
    ),
  );
}

/**
 * The client's answer when the upstream call failed: the client left (400), a timeout (504),
 * or no upstream answered (502, and `onError` hears an `UpstreamUnreachableError`).
 *
 * @example
 * return upstreamFailure(ctx, error, signal)
 */
export function upstreamFailure(ctx: RequestContext, error: unknown, signal: AbortSignal): Response {
  const { protocol, config } = ctx;
  const { upstream } = protocol;
  if (signal.aborted) return providerError(protocol, 400, 'the client closed the request');
  if (error instanceof UpstreamIdleTimeout)
    return providerError(protocol, 504, `the ${upstream.name} ${error.message.replace(/^the /, '')}`);
  if (error instanceof FirstByteTimeout) return providerError(protocol, 504, notBegun(ctx, error));
  config.onError?.(new UpstreamUnreachableError(upstream, config.upstreams[upstream.name] ?? '', error));
  return providerError(protocol, 502, `the ${upstream.name} upstream could not be reached`);
}

function notBegun(ctx: RequestContext, error: FirstByteTimeout): string {
  return `the ${ctx.protocol.upstream.name} upstream did not begin its answer within ${Math.round(error.ms / 1000)} s`;
}

/** The client's answer once the upstream has begun its own. */
async function answer(
  calls: Calls,
  upstream: Response,
  outcome: Outcome | undefined,
  rounds: SearchRounds | undefined,
): Promise<Response> {
  const { ctx, controller } = calls;
  const headers = clientHeaders(upstream.headers);
  if (outcome) reportOutcome(headers, outcome);
  const isEvents = EVENT_STREAM.test(upstream.headers.get('content-type') ?? '');
  const init = { status: upstream.status, statusText: upstream.statusText, headers };
  if (rounds && upstream.ok && isEvents)
    return new Response(eventStream(streamRounds(rounds, upstream), controller), init);
  if (rounds && upstream.ok && !isEvents) {
    const answered = await roundsAnswer(ctx, rounds, upstream, headers, controller.signal);
    if (answered instanceof Response) return answered;
    upstream = answered.upstream;
  }
  // The upstream body as is: SSE streamed through unbuffered (a failure mid-stream ends it
  // with an error event), any other answer up to 256 KiB whole.
  if (isEvents && upstream.body) return new Response(relayEvents(upstream.body, ctx.protocol), init);
  return wholeAnswer(ctx, upstream, headers, controller.signal);
}

/** Non-stream search rounds: the client's one answer, or the upstream answer to relay as it is. */
async function roundsAnswer(
  ctx: RequestContext,
  rounds: SearchRounds,
  first: Response,
  headers: Headers,
  signal: AbortSignal,
): Promise<Response | { upstream: Response }> {
  const { protocol } = ctx;
  try {
    const result = await jsonRounds(rounds, first);
    if (result.kind === 'upstream') return { upstream: result.response };
    if (result.kind === 'broken')
      return providerError(
        protocol,
        502,
        `the ${protocol.upstream.name} upstream sent an answer that is not valid JSON during a tool search round`,
      );
    const final = clientHeaders(result.last.headers);
    headers.forEach((value, name) => {
      if (name.startsWith('x-loopctl-') || name === 'server-timing') final.set(name, value);
    });
    final.set('x-loopctl-search-rounds', String(result.rounds));
    final.set('content-type', 'application/json');
    return new Response(result.body, { status: 200, headers: final });
  } catch (error) {
    return upstreamFailure(ctx, error, signal);
  }
}

/** A non-stream answer relayed: gathered whole when small, a 502 when it was cut off. */
async function wholeAnswer(
  ctx: RequestContext,
  upstream: Response,
  headers: Headers,
  signal: AbortSignal,
): Promise<Response> {
  const { protocol, config } = ctx;
  let body: BodyInit | null;
  try {
    body = await clientBody(upstream);
  } catch (error) {
    if (signal.aborted) return providerError(protocol, 400, 'the client closed the request');
    if (error instanceof UpstreamIdleTimeout) return upstreamFailure(ctx, error, signal);
    const name = protocol.upstream.name;
    config.onError?.(
      new Error(`proxy: the ${name} upstream answer was cut off: ${errorMessage(error)}`, { cause: error }),
    );
    return providerError(protocol, 502, `the ${name} upstream closed the connection before its answer was complete`);
  }
  return new Response(body, { status: upstream.status, statusText: upstream.statusText, headers });
}

/**
 * A stream whose upstream is slow to begin: the client gets its status and keep-alive comments
 * now, then the upstream's events; a failure from here on is an error event in the stream.
 */
function committedStream(
  calls: Calls,
  outcome: Outcome | undefined,
  pending: Promise<Response>,
  rounds: SearchRounds | undefined,
): Response {
  const headers = new Headers({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  if (outcome) reportOutcome(headers, outcome);
  return new Response(eventStream(committedEvents(calls, pending, rounds), calls.controller), {
    status: 200,
    headers,
  });
}

async function* committedEvents(
  { ctx, controller }: Calls,
  pending: Promise<Response>,
  rounds: SearchRounds | undefined,
): AsyncGenerator<string | Uint8Array> {
  const { protocol } = ctx;
  yield KEEP_ALIVE;
  let upstream: Response;
  try {
    upstream = yield* ticksUntilWith(pending, ctx.config.keepAliveMs);
  } catch (error) {
    if (controller.signal.aborted && !(error instanceof FirstByteTimeout)) return;
    yield error instanceof FirstByteTimeout
      ? protocol.errorEvent('timeout_error', notBegun(ctx, error))
      : protocol.errorEvent('api_error', `the ${protocol.upstream.name} upstream could not be reached`);
    return;
  }
  if (!upstream.ok) {
    const detail = await upstream.text().catch(() => '');
    yield protocol.errorEvent(
      upstream.status === 429 ? 'rate_limit_error' : 'api_error',
      `the upstream answered ${upstream.status}: ${detail.slice(0, 500)}`,
    );
    return;
  }
  if (rounds && EVENT_STREAM.test(upstream.headers.get('content-type') ?? '')) {
    yield* streamRounds(rounds, upstream);
    return;
  }
  if (!upstream.body) return;
  const reader = relayEvents(upstream.body, protocol).getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** `ticksUntil` as a delegate that turns its ticks into keep-alive comments. */
async function* ticksUntilWith(pending: Promise<Response>, everyMs: number): AsyncGenerator<string, Response> {
  const ticks = ticksUntil(pending, everyMs);
  while (true) {
    const step = await ticks.next();
    if (step.done) return step.value;
    yield KEEP_ALIVE;
  }
}

const encoder = new TextEncoder();

/** A byte stream pulled from `source`; cancelling it (the client left) aborts the upstream calls. */
function eventStream(
  source: AsyncGenerator<string | Uint8Array>,
  controller: AbortController,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(stream) {
      try {
        const step = await source.next();
        if (step.done) stream.close();
        else stream.enqueue(typeof step.value === 'string' ? encoder.encode(step.value) : step.value);
      } catch (error) {
        if (controller.signal.aborted) stream.close();
        else stream.error(error);
      }
    },
    cancel(reason) {
      controller.abort(reason);
      void source.return(undefined).catch(() => undefined);
    },
  });
}
