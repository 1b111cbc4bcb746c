/**
 * What the client is told when an upstream body fails after the answer began (the upstream
 * went silent, sent garbage or an endless event, or its connection dropped): the type and text
 * of the error event, or of the error answer, in the protocol's shape. Only the proxy's own
 * words: a runtime's error text may name hosts or paths, and is not repeated.
 */
import { BrokenUpstreamStream } from './round-codec.js';
import { SseEventTooLarge } from './sse-events.js';
import { UpstreamIdleTimeout } from './upstream-idle.js';

/** An error type both protocols' clients know, and what went wrong. */
export interface StreamFailure {
  readonly type: 'timeout_error' | 'api_error';
  readonly message: string;
}

/**
 * The failure to report for an error reading an upstream body.
 *
 * @example
 * streamFailure(new UpstreamIdleTimeout(300_000)) // { type: 'timeout_error', message: 'the upstream sent nothing for 300 s' }
 */
export function streamFailure(error: unknown): StreamFailure {
  if (error instanceof UpstreamIdleTimeout) return { type: 'timeout_error', message: error.message };
  if (error instanceof SseEventTooLarge || error instanceof BrokenUpstreamStream)
    return { type: 'api_error', message: error.message };
  return { type: 'api_error', message: 'the upstream connection closed before its answer was complete' };
}
