/**
 * Tells whether the model answered the first request of a run, without an extra request:
 * the client's `fetch` is wrapped, and the first call settles the probe. A network failure
 * (connection refused, DNS) means no model is there; any HTTP response means one is.
 */
import type { FetchLike } from '../model/http.js';

/** How the first model request went. */
export type ProbeOutcome = 'answered' | 'unreachable';

/** A wrapped fetch and the outcome of its first call. */
export interface ModelProbe {
  readonly fetch: FetchLike;
  /** Settles with the first call's outcome (never rejects). */
  readonly first: Promise<ProbeOutcome>;
}

/**
 * Wrap `fetch` so its first call reports whether anything answered.
 *
 * @example
 * const probe = modelProbe(globalFetch)
 * const client = openAIChatClient({ model, fetch: probe.fetch })
 * if ((await probe.first) === 'unreachable') return noModel()
 */
export function modelProbe(fetch: FetchLike): ModelProbe {
  let settle!: (outcome: ProbeOutcome) => void;
  const first = new Promise<ProbeOutcome>((resolve) => (settle = resolve));
  return {
    first,
    fetch: async (input, init) => {
      try {
        const response = await fetch(input, init);
        settle('answered');
        return response;
      } catch (error) {
        // An abort is the caller's doing, not the model's absence.
        if (!init.signal?.aborted) settle('unreachable');
        throw error;
      }
    },
  };
}
