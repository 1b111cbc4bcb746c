/**
 * One signal's abort passed on to a controller, holding nothing else. A file of its own, out of
 * the core bundle: only the proxy and the MCP mounts use it.
 */

/**
 * Abort `controller` with `signal`'s reason when `signal` aborts (at once when it already has);
 * returns the unlink. The listener closes over the two alone: a signal can outlive the work it
 * was given for (Node's fetch holds the signal a Request was built from until that Request is
 * collected), and a listener that reached the work's own state would keep it alive, or make a
 * cycle the collector never breaks (every proxied request was kept so).
 *
 * @example
 * const controller = new AbortController()
 * const unlink = abortWith(request.signal, controller)
 * try { await work(controller.signal) } finally { unlink() }
 */
export function abortWith(signal: AbortSignal, controller: AbortController): () => void {
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => undefined;
  }
  const onAbort = (): void => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}
