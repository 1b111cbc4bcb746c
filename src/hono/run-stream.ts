/**
 * Streaming a loop run as server-sent events (Hono's `streamSSE`). The response is held back
 * until the first model request has been answered (or a short grace period passed), so "no
 * model is running" can still be a plain 503.
 *
 * A client that goes away stops the run at once: the run's signal is
 * `AbortSignal.any([request.signal, stream cancelled])`, which aborts the model request in
 * flight, the selector and every tool handler. Some runtimes (workerd) notice a closed socket
 * only when they next write to it, so while the run is quiet (waiting on the model) an SSE
 * comment is written every `heartbeatMs`: the disconnect surfaces within one beat.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { errorMessage } from '../describe-error.js';
import type { LoopRun } from '../loop/bare-loop.js';
import type { LoopEvent } from '../loop/events.js';
import { mergeOptions } from '../options.js';
import { ApiError } from './api-error.js';
import type { ProbeOutcome } from './model-probe.js';
import { redactSecrets } from './redact-secrets.js';

/** Options for {@link streamRun}. */
export interface StreamRunOptions {
  /** Starts the run with this signal (it aborts when the client disconnects). */
  start: (signal: AbortSignal) => LoopRun;
  /** The first model request's outcome (see `modelProbe`). */
  probe: Promise<ProbeOutcome>;
  /** The incoming request's own signal (aborted when the client goes away, where the runtime does that). */
  requestSignal?: AbortSignal | undefined;
  /** Start streaming after this long even if the model has not answered yet. Default 1500 ms. */
  graceMs?: number;
  /** Write an SSE comment this often while no event is due, to notice a closed connection. Default 250 ms. */
  heartbeatMs?: number;
  /** Strings scrubbed from every event (API keys, the bearer token). */
  secrets?: readonly string[];
}

/**
 * Run and stream. Resolves to the SSE response, or rejects with a 503 {@link ApiError} when
 * the model endpoint refused the first request.
 *
 * @example
 * const probe = modelProbe(fetch)
 * return streamRun(c, { start: (signal) => loop.run(prompt, { signal }), probe: probe.first, requestSignal: c.req.raw.signal })
 */
export async function streamRun(c: Context, options: StreamRunOptions): Promise<Response> {
  const { graceMs, heartbeatMs, secrets } = mergeOptions(
    { graceMs: 1500, heartbeatMs: 250, secrets: [] as readonly string[] },
    options,
  );
  const streamGone = new AbortController();
  const signals = options.requestSignal ? [options.requestSignal, streamGone.signal] : [streamGone.signal];
  const signal = AbortSignal.any(signals);
  const run = options.start(signal);

  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<'grace'>((resolve) => (timer = setTimeout(() => resolve('grace'), graceMs)));
  // Events queue inside the run until iterated, so waiting here loses nothing.
  const outcome = await Promise.race([options.probe, run.result().then(() => 'ended' as const), grace]);
  clearTimeout(timer);
  if (outcome === 'unreachable') {
    streamGone.abort(new DOMException('no model answered', 'AbortError'));
    await run.result();
    throw new ApiError(
      503,
      'model_unavailable',
      'no model answered at the configured endpoint (MODEL_BASE_URL): connection failed. Start the model server or fix the configuration; /v1/select works without a model.',
    );
  }

  const scrub = (text: string): string => redactSecrets(text, secrets);

  const response = streamSSE(c, async (stream) => {
    stream.onAbort(() => {
      streamGone.abort(new DOMException('the client went away', 'AbortError'));
      run.cancel();
    });
    const beat = setInterval(() => void stream.write(': \n\n'), heartbeatMs);
    try {
      for await (const event of run) {
        if (stream.aborted) break;
        await stream.writeSSE({ event: event.type, data: scrub(JSON.stringify(event)) });
      }
    } catch (error) {
      // Unreachable with a well-behaved loop; still, never drop the connection silently.
      const event: LoopEvent = { type: 'error', turn: 0, code: 'stream_failed', message: errorMessage(error) };
      await stream.writeSSE({ event: event.type, data: scrub(JSON.stringify(event)) });
    } finally {
      clearInterval(beat);
    }
  });
  // Framing is the runtime's business (Hono sets these for Bun's sake).
  response.headers.delete('transfer-encoding');
  response.headers.delete('connection');
  response.headers.set('content-type', 'text/event-stream; charset=utf-8');
  response.headers.set('cache-control', 'no-cache, no-transform');
  response.headers.set('x-accel-buffering', 'no');
  return response;
}
