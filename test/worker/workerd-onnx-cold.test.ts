/**
 * Issue 13 item 4, the cold-start burst in real workerd with USE-lite inside the worker: the
 * `--env onnx` bundle exactly as `wrangler deploy --dry-run` builds it, served by Miniflare over
 * real sockets with an empty KV. 32 concurrent first `hybrid` selects must all answer 200.
 * Before the fix, every request that arrived while the first one loaded the model and embedded
 * the corpus (seconds of WASM chained by promises, never yielding to the event loop) had its
 * connection closed without an answer when that work ended.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildOnnxWorker, WORKER_MODEL_FILES } from '../../scripts/start-worker.mjs';
import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS } from '../workers/constants.js';
import { coldBurst } from './cold-burst.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TOKEN = 'onnx-cold-token-0123456789';
const modelBuilt = WORKER_MODEL_FILES.every((file) => existsSync(join(root, 'models', 'use-lite', file)));
let dir: string;
let mf: Miniflare | undefined;
let origin: string;

beforeAll(async () => {
  if (!modelBuilt) return;
  dir = mkdtempSync(join(tmpdir(), 'loopctl-onnx-'));
  const assets = join(dir, 'assets');
  for (const file of WORKER_MODEL_FILES) {
    const to = join(assets, 'models', 'use-lite', file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(root, 'models', 'use-lite', file), to);
  }
  mf = new Miniflare({
    ...buildOnnxWorker({ outdir: join(dir, 'build'), assets }),
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: [...COMPATIBILITY_FLAGS],
    kvNamespaces: ['VECTORS'],
    assets: { directory: assets, binding: 'ASSETS', routerConfig: { has_user_worker: true } },
    bindings: { LOOPCTL_TOKEN: TOKEN, MODEL_BASE_URL: 'http://127.0.0.1:9/v1' },
    host: '127.0.0.1',
    port: 0,
    cf: false,
  });
  origin = (await mf.ready).origin;
}, 180_000);

afterAll(async () => {
  await mf?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it.skipIf(!modelBuilt)(
  '32 concurrent first hybrid selects on a cold ONNX worker all answer 200',
  { timeout: 240_000 },
  async () => {
    const burst = await coldBurst(
      (init) =>
        fetch(`${origin}/v1/select`, init).catch((error: unknown) =>
          Response.json({ dropped: String(error) }, { status: 599 }),
        ),
      TOKEN,
      32,
    );
    expect(burst.statuses).toEqual(Array(32).fill(200));
    expect(burst.fellOpen).toBe(0);
    expect(burst.advertised[0]).toContain('get_weather_forecast');
  },
);
