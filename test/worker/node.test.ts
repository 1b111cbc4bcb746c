/**
 * The worker suite against the Node entry: `startNodeServer` (the same code `node
 * scripts/serve-node.mjs` runs) on free loopback ports, over real HTTP.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TOOLS, registerDemoTools } from '../../demo/demo-tools.js';
import { buildVectorsFile } from '../../src/embed/vectors-build.js';
import { optionsFromVars } from '../../src/hono/index.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer, useLiteFromDisk, vectorsFromDisk } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import type { ModelFixture } from './model-fixture.js';
import { startModelFixture } from './model-fixture.js';
import { rawHttp } from './raw-http.js';
import type { RawExchange, SuiteTarget } from './suite.js';
import { CHECKS } from './suite.js';

const TOKEN = 'node-suite-token-0123456789abcdef';
const API_KEY = 'sk-node-suite-model-key';
const ORIGIN = 'https://demo.example';

let model: ModelFixture;
const servers: RunningServer[] = [];
let target: SuiteTarget;

beforeAll(async () => {
  model = await startModelFixture();
  // USE-lite when the model folder is built (npm run build:model), else a counting stand-in.
  const embedder = useLiteFromDisk('models/use-lite') ?? countingEmbedder();
  const start = async (vars: Record<string, string>, extra = {}) => {
    const registry = registerDemoTools(new ToolRegistry());
    const server = await startNodeServer({
      ...optionsFromVars(vars),
      registry,
      port: 0,
      onError: () => undefined,
      ...extra,
    });
    servers.push(server);
    return { baseURL: server.url, raw: (exchange: RawExchange) => rawHttp(server.url, exchange) };
  };
  const api = await start(
    {
      LOOPCTL_TOKEN: TOKEN,
      MODEL_BASE_URL: model.baseURL,
      MODEL_NAME: 'scripted',
      MODEL_API_KEY: API_KEY,
      CORS_ORIGINS: ORIGIN,
    },
    { embedder },
  );
  const unconfigured = await start({ MODEL_BASE_URL: model.baseURL });
  const noModel = await start({ LOOPCTL_TOKEN: TOKEN, MODEL_BASE_URL: model.deadBaseURL });
  target = {
    api,
    unconfigured,
    noModel,
    token: TOKEN,
    modelApiKey: API_KEY,
    corsOrigin: ORIGIN,
    modelControlURL: model.controlURL,
    embedding: true,
  };
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await model?.close();
});

describe('worker API on Node (@hono/node-server)', () => {
  for (const check of CHECKS) it(check.name, () => check.run(target));
});

describe('a vectors file on disk (LOOPCTL_VECTORS)', () => {
  it('seeds the embedding selector: the first selection embeds only the prompt; a missing file is a warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopctl-node-vectors-'));
    try {
      const file = join(dir, 'tools.lcv');
      writeFileSync(file, await buildVectorsFile(countingEmbedder({ id: 'test/node-seed' }), DEMO_TOOLS));
      const select = async (vectors: string) => {
        const embedder = countingEmbedder({ id: 'test/node-seed' });
        const server = await startNodeServer({
          registry: registerDemoTools(new ToolRegistry()),
          token: TOKEN,
          port: 0,
          embedder,
          vectors: vectorsFromDisk(vectors),
          onError: () => undefined,
        });
        servers.push(server);
        const response = await fetch(`${server.url}/v1/select`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: 'weather forecast for Bergen', selector: 'embedding', k: 4 }),
        });
        expect(response.status).toBe(200);
        return { body: (await response.json()) as { advertised: string[]; warnings?: string[] }, embedder };
      };
      const seeded = await select(file);
      expect(seeded.embedder.texts).toEqual(['weather forecast for Bergen']);
      expect(seeded.body.warnings).toBeUndefined();
      expect(seeded.body.advertised).toContain('get_weather_forecast');
      const missing = await select(join(dir, 'missing.lcv'));
      expect(missing.body.warnings).toEqual([expect.stringMatching(/^vectors file could not be read \(ENOENT/)]);
      expect(missing.embedder.texts).toHaveLength(DEMO_TOOLS.length + 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
