/**
 * The cold-start burst, runtime-neutral: `count` concurrent first `hybrid` selects against a
 * worker that has loaded nothing yet must all answer 200 (not fallen open) while sharing one
 * model load and one corpus embedding. The caller supplies `fetch` to a fresh worker whose
 * embedder factory is `slowFactory` (a counting embedder behind a slow "load").
 */

import type { CountingEmbedder } from '../embed/counting-embedder.js';
import { countingEmbedder } from '../embed/counting-embedder.js';

/** A lazily "loaded" counting embedder: counts factory calls, takes `loadMs` to load. */
export interface SlowModel {
  readonly embedder: CountingEmbedder;
  /** Pass as the app's `embedder`. */
  readonly factory: () => Promise<CountingEmbedder>;
  readonly loads: () => number;
}

/**
 * @example
 * const model = slowModel(200)
 * const app = createApp({ registry, token, embedder: model.factory })
 */
export function slowModel(loadMs: number): SlowModel {
  const embedder = countingEmbedder();
  let loads = 0;
  return {
    embedder,
    loads: () => loads,
    factory: async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, loadMs));
      return embedder;
    },
  };
}

/** The prompts the burst sends, in turn. */
export const PROMPTS = [
  'Will it rain in Oslo tomorrow?',
  'Email Ana the May invoice',
  'Deploy the payments service to staging',
  'Open the pull request for checkout',
];

/**
 * Fire the burst; returns what a test asserts on.
 *
 * @example
 * const burst = await coldBurst((init) => fetch(`${url}/v1/select`, init), token, 32)
 */
export async function coldBurst(
  fetchSelect: (init: RequestInit) => Promise<Response>,
  token: string,
  count = 32,
): Promise<{ statuses: number[]; fellOpen: number; advertised: string[][] }> {
  const answers = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const response = await fetchSelect({
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: PROMPTS[i % PROMPTS.length], selector: 'hybrid', k: 4 }),
      });
      const body = (await response.json()) as { fellOpen?: boolean; advertised?: string[] };
      return { status: response.status, fellOpen: body.fellOpen === true, advertised: body.advertised ?? [] };
    }),
  );
  return {
    statuses: answers.map((answer) => answer.status),
    fellOpen: answers.filter((answer) => answer.fellOpen).length,
    advertised: answers.map((answer) => answer.advertised),
  };
}
