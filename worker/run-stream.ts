/**
 * A loop run as a `text/event-stream` response: one SSE event per {@link LoopEvent}
 * (`event: <type>`, `data: <json>`). The response only starts once the first model request
 * has been answered (or a short grace period passed), so "no model is running" can still be
 * a plain 503. A client that goes away cancels the run, which aborts the model request, the
 * selector and any tool handler in flight.
 */
import type { LoopEvent } from '../src/loop/events.js';
import type { LoopRun } from '../src/loop/bare-loop.js';
import type { ProbeOutcome } from './model-probe.js';
import { ApiError } from './api-error.js';

/** Options for {@link streamRun}. */
export interface StreamRunOptions {
  /** Starts the run with this signal (it aborts when the client disconnects). */
  start: (signal: AbortSignal) => LoopRun;
  /** The first model request's outcome (see `modelProbe`). */
  probe: Promise<ProbeOutcome>;
  /** The request's own signal: aborted when the client goes away. */
  requestSignal?: AbortSignal;
  /** Start streaming after this long even if the model has not answered yet. Default 1500 ms. */
  graceMs?: number;
  /** Strings scrubbed from every event (API keys, the bearer token). */
  secrets?: readonly string[];
}

const encoder = new TextEncoder();

/**
 * Run and stream. Resolves to the SSE response, or rejects with a 503 {@link ApiError} when
 * the model endpoint refused the first request.
 *
 * @example
 * const probe = modelProbe(fetch)
 * return streamRun({ start: (signal) => loop.run(prompt, { signal }), probe: probe.first })
 */
export async function streamRun(options: StreamRunOptions): Promise<Response> {
  const { graceMs, secrets } = { graceMs: 1500, secrets: [] as readonly string[], ...options };
  const controller = new AbortController();
  const requestSignal = options.requestSignal;
  const onGone = (): void => controller.abort(new DOMException('the client went away', 'AbortError'));
  if (requestSignal?.aborted) onGone();
  else requestSignal?.addEventListener('abort', onGone, { once: true });

  const run = options.start(controller.signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<'grace'>((resolve) => (timer = setTimeout(() => resolve('grace'), graceMs)));
  // Events queue inside the run until iterated, so waiting here loses nothing.
  const outcome = await Promise.race([options.probe, run.result().then(() => 'ended' as const), grace]);
  clearTimeout(timer);
  if (outcome === 'unreachable') {
    controller.abort(new DOMException('no model answered', 'AbortError'));
    await run.result();
    requestSignal?.removeEventListener('abort', onGone);
    throw new ApiError(
      503,
      'model_unavailable',
      'no model answered at the configured endpoint (MODEL_BASE_URL): connection failed. Start the model server or fix the configuration; /v1/select works without a model.',
    );
  }

  const scrub = (text: string): string => {
    let out = text;
    for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
    return out;
  };
  const iterator = run[Symbol.asyncIterator]();
  const finish = (): void => requestSignal?.removeEventListener('abort', onGone);

  const body = new ReadableStream<Uint8Array>({
    async pull(stream) {
      try {
        const next = await iterator.next();
        if (next.done) {
          finish();
          stream.close();
          return;
        }
        stream.enqueue(encoder.encode(scrub(sseEvent(next.value))));
      } catch (error) {
        // Unreachable with a well-behaved loop; still, never drop the connection silently.
        const event: LoopEvent = { type: 'error', turn: 0, code: 'stream_failed', message: error instanceof Error ? error.message : String(error) };
        stream.enqueue(encoder.encode(scrub(sseEvent(event))));
        finish();
        stream.close();
      }
    },
    async cancel() {
      // The client went away: stop the run (model request, selector, tools) right now.
      onGone();
      run.cancel();
      finish();
      await iterator.return?.();
    },
  });

  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  });
}

/**
 * One SSE frame. JSON never contains a raw newline, so `data:` is always one line.
 *
 * @example
 * sseEvent({ type: 'turn_start', turn: 1 }) // 'event: turn_start\ndata: {"type":"turn_start","turn":1}\n\n'
 */
export function sseEvent(event: LoopEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
