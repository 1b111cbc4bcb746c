/**
 * One turn of the event loop between the steps of a large request. Reading, decoding, parsing
 * and re-encoding an 8 MiB body each hold the loop for several to tens of milliseconds; done back
 * to back they stall every other request for their sum. A turn between them lets requests that
 * arrived meanwhile go ahead, so no other request waits for more than one step. Small bodies
 * (the usual case) never wait.
 */

/** Bodies at or above this many bytes (or UTF-16 units) yield between steps. */
export const LARGE_BODY_BYTES = 1024 * 1024;

/**
 * Resolve after one macrotask turn when `size` is a large body's; at once otherwise.
 *
 * @example
 * await largeBodyTurn(bytes.byteLength)
 */
export function largeBodyTurn(size: number): Promise<void> | undefined {
  return isLargeBody(size) ? nextTurn() : undefined;
}

/**
 * Whether a body of `size` bytes (or UTF-16 units) is parsed and encoded in steps.
 *
 * @example
 * isLargeBody(8 * 1024 * 1024) // true
 */
export function isLargeBody(size: number): boolean {
  return size >= LARGE_BODY_BYTES;
}

/**
 * Resolve after one macrotask turn, in which requests that arrived meanwhile go ahead.
 *
 * @example
 * await nextTurn()
 */
export function nextTurn(): Promise<void> {
  // A zero timeout rather than Node's setImmediate: Node waits about 1 ms before it fires, and
  // the small requests' work runs in that gap. With setImmediate an 8 MiB prompt was answered
  // sooner (155–315 ms, not 400–530 ms) but the small requests served meanwhile moved by
  // 14–17 ms at p50 instead of 1–5 ms (bench:big-prompt).
  return new Promise((done) => setTimeout(done, 0));
}
