/**
 * The worker suite against the Node entry: `startNodeServer` (the same code `node
 * scripts/serve-node.mjs` runs) on free loopback ports, over real HTTP.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { registerDemoTools } from '../../demo/demo-tools.js';
import { optionsFromVars } from '../../src/hono/index.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer, useLiteFromDisk } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';
import type { ModelFixture } from './model-fixture.js';
import { startModelFixture } from './model-fixture.js';
import { rawHttp } from './raw-http.js';
import type { RawExchange, SuiteTarget } from './suite.js';
import { CHECKS } from './suite.js';
import { countingEmbedder } from '../embed/counting-embedder.js';

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
    const server = await startNodeServer({ ...optionsFromVars(vars), registry, port: 0, onError: () => undefined, ...extra });
    servers.push(server);
    return { baseURL: server.url, raw: (exchange: RawExchange) => rawHttp(server.url, exchange) };
  };
  const api = await start(
    { LOOPCTL_TOKEN: TOKEN, MODEL_BASE_URL: model.baseURL, MODEL_NAME: 'scripted', MODEL_API_KEY: API_KEY, CORS_ORIGINS: ORIGIN },
    { embedder },
  );
  const unconfigured = await start({ MODEL_BASE_URL: model.baseURL });
  const noModel = await start({ LOOPCTL_TOKEN: TOKEN, MODEL_BASE_URL: model.deadBaseURL });
  target = { api, unconfigured, noModel, token: TOKEN, modelApiKey: API_KEY, corsOrigin: ORIGIN, modelControlURL: model.controlURL, embedding: true };
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await model?.close();
});

describe('worker API on Node (@hono/node-server)', () => {
  for (const check of CHECKS) it(check.name, () => check.run(target));
});
