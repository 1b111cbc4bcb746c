/**
 * The worker suite against real workerd over real sockets: `worker/workers.ts` bundled as
 * wrangler would (esbuild, ESM, workerd conditions) and served by Miniflare, each
 * configuration on its own loopback port. Unlike the vitest workers pool (`SELF.fetch`), a
 * client here closes a TCP connection and sends raw HTTP, so disconnects and odd requests
 * behave as they do in production.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS } from '../workers/constants.js';
import type { ModelFixture } from './model-fixture.js';
import { startModelFixture } from './model-fixture.js';
import { rawHttp } from './raw-http.js';
import type { SuiteTarget } from './suite.js';
import { CHECKS } from './suite.js';

const TOKEN = 'workerd-http-suite-token-0123456789';
const API_KEY = 'sk-workerd-http-model-key';
const ORIGIN = 'https://demo.example';

let model: ModelFixture;
let mf: Miniflare | undefined;
let outdir: string;
let target: SuiteTarget;

beforeAll(async () => {
  model = await startModelFixture();
  outdir = mkdtempSync(join(tmpdir(), 'loopctl-workerd-'));
  const script = join(outdir, 'worker.js');
  await build({
    entryPoints: ['worker/workers.ts'],
    outfile: script,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    target: 'es2022',
    logLevel: 'warning',
  });
  const worker = (name: string, bindings: Record<string, string>) => ({
    name,
    // Listed, not walked: the bundle keeps loopctl/mcp's stdio transport (the /mcp gateway),
    // whose Node import takes a variable specifier (never reached on Workers) that Miniflare's
    // module walker cannot resolve; wrangler lists the bundle's modules the same way.
    modules: [{ type: 'ESModule' as const, path: script }],
    modulesRoot: outdir,
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: [...COMPATIBILITY_FLAGS],
    kvNamespaces: ['VECTORS'],
    bindings,
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  });
  mf = new Miniflare({
    workers: [
      worker('api', {
        LOOPCTL_TOKEN: TOKEN,
        MODEL_BASE_URL: model.baseURL,
        MODEL_NAME: 'scripted',
        MODEL_API_KEY: API_KEY,
        CORS_ORIGINS: ORIGIN,
      }),
      worker('unconfigured', { MODEL_BASE_URL: model.baseURL }),
      worker('no-model', { LOOPCTL_TOKEN: TOKEN, MODEL_BASE_URL: model.deadBaseURL }),
    ],
    cf: false,
  });
  await mf.ready;
  const origin = async (name: string) => (await mf!.unsafeGetDirectURL(name)).origin;
  const api = await origin('api');
  target = {
    api: { baseURL: api, raw: (request) => rawHttp(api, request) },
    unconfigured: { baseURL: await origin('unconfigured') },
    noModel: { baseURL: await origin('no-model') },
    token: TOKEN,
    modelApiKey: API_KEY,
    corsOrigin: ORIGIN,
    modelControlURL: model.controlURL,
    embedding: false,
    runtimeRefusesBadLength: true,
  };
});

afterAll(async () => {
  await mf?.dispose();
  await model?.close();
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

describe('worker API in workerd over real sockets (Miniflare)', () => {
  for (const check of CHECKS) it(check.name, () => check.run(target));
});
