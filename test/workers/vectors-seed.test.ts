/**
 * A worker seeded from a precomputed vectors file, inside workerd with the real KV and assets
 * bindings: a cold instance's first selection embeds only the prompt; a damaged file in KV is
 * refused with a warning in the response and the selection still answers.
 */
import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { DEMO_TOOLS, registerDemoTools } from '../../demo/demo-tools.js';
import { VECTORS_KV_KEY } from '../../src/adapters/kv.js';
import { buildVectorsFile } from '../../src/embed/vectors-build.js';
import type { WorkerEnv, WorkerOptions } from '../../src/hono/index.js';
import { createWorker as createApiWorker } from '../../src/hono/index.js';
import { ToolRegistry } from '../../src/index.js';
import { kvOrAssetVectors } from '../../worker/worker-vectors.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import { ASSET_EMBEDDER_ID, TEST_TOKEN } from './constants.js';

type Bindings = WorkerEnv & {
  VECTORS: { put(key: string, value: ArrayBuffer): Promise<void>; delete(key: string): Promise<void> };
};
const bindings = env as unknown as Bindings;
/** The API over the demo tools, as the demo worker serves it. */
const createWorker = (options: Omit<WorkerOptions, 'registry'>) =>
  createApiWorker({ ...options, registry: () => registerDemoTools(new ToolRegistry()) });
const PROMPT = 'Will it rain in Bergen tomorrow? Check the weather forecast.';

async function select(
  worker: ReturnType<typeof createWorker>,
): Promise<{ advertised: string[]; fellOpen: boolean; warnings?: string[] }> {
  const response = await worker.fetch(
    new Request('http://loopctl.test/v1/select', {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: PROMPT, selector: 'embedding', k: 5 }),
    }),
    { ...bindings },
  );
  expect(response.status).toBe(200);
  return response.json();
}

it('a vectors file in KV (loopctl:vectors-file): a cold worker embeds only the prompt', async () => {
  const id = 'test/kv-seed';
  const bytes = await buildVectorsFile(countingEmbedder({ id }), DEMO_TOOLS);
  await bindings.VECTORS.put(VECTORS_KV_KEY, bytes.slice().buffer);
  try {
    const embedder = countingEmbedder({ id });
    const body = await select(createWorker({ embedder: () => embedder }));
    expect(embedder.texts).toEqual([PROMPT]);
    expect(body.fellOpen).toBe(false);
    expect(body.warnings).toBeUndefined();
    expect(body.advertised).toContain('get_weather_forecast');
  } finally {
    await bindings.VECTORS.delete(VECTORS_KV_KEY);
  }
});

it('a bit-flipped file in KV: refused with a warning in the response, the corpus embedded, the selection answers', async () => {
  const id = 'test/kv-flipped';
  const bytes = await buildVectorsFile(countingEmbedder({ id }), DEMO_TOOLS);
  bytes[100] = (bytes[100] as number) ^ 1;
  await bindings.VECTORS.put(VECTORS_KV_KEY, bytes.slice().buffer);
  try {
    const embedder = countingEmbedder({ id });
    const body = await select(createWorker({ embedder: () => embedder }));
    expect(embedder.texts).toHaveLength(DEMO_TOOLS.length + 1);
    expect(body.fellOpen).toBe(false);
    expect(body.warnings).toEqual([expect.stringMatching(/^vectors file refused \(checksum mismatch/)]);
    expect(body.advertised).toContain('get_weather_forecast');
  } finally {
    await bindings.VECTORS.delete(VECTORS_KV_KEY);
  }
});

it('no file in KV: the one shipped in the assets seeds the corpus', async () => {
  const embedder = countingEmbedder({ id: ASSET_EMBEDDER_ID });
  const body = await select(createWorker({ embedder: () => embedder, vectors: (e) => kvOrAssetVectors(e) }));
  expect(embedder.texts).toEqual([PROMPT]);
  expect(body.warnings).toBeUndefined();
  expect(body.advertised).toContain('get_weather_forecast');
});

it('the shipped asset for another embedder is refused with a warning; a missing asset is no file', async () => {
  const other = countingEmbedder({ id: 'test/other-model' });
  const refused = await select(createWorker({ embedder: () => other, vectors: (e) => kvOrAssetVectors(e) }));
  expect(refused.warnings).toEqual([
    expect.stringMatching(/built by embedder "test\/asset-seed", this selector uses "test\/other-model"/),
  ]);
  expect(other.texts).toHaveLength(DEMO_TOOLS.length + 1);

  const none = countingEmbedder({ id: 'test/no-asset' });
  const missing = await select(
    createWorker({ embedder: () => none, vectors: (e) => kvOrAssetVectors(e, '/vectors/none.lcv') }),
  );
  expect(missing.warnings).toBeUndefined();
  expect(none.texts).toHaveLength(DEMO_TOOLS.length + 1);
});
