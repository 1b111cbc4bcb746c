/** The signal the mount hands the SDK for one request. */
import { abortWith } from '../../limits/abort-with.js';

/**
 * A signal that follows `outer` until disposed. The SDK never removes the abort listener it
 * adds, so handing it the run's own signal would pile listeners onto it and, on a later
 * abort, send cancellations for requests that finished long ago.
 *
 * @example
 * const linked = linkSignal(runSignal)
 * try { await client.callTool(params, undefined, { signal: linked.signal }) } finally { linked.dispose() }
 */
export function linkSignal(outer: AbortSignal | undefined): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (!outer) return { signal: controller.signal, dispose: () => undefined };
  return { signal: controller.signal, dispose: abortWith(outer, controller) };
}
