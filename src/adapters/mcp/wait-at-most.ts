import { raceAbort } from '../../limits/abort.js';

/**
 * Wait for `promise`, at most `ms`, never rejecting: for ending a session or a process
 * politely without ever hanging on a peer that does not answer.
 *
 * @example
 * await waitAtMost(transport.terminateSession(), 2_000)
 */
export function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  return raceAbort(promise, AbortSignal.timeout(ms)).then(
    () => undefined,
    () => undefined,
  );
}
