/**
 * The worker suite against the Deno entry: `denoHandler` (what `worker/deno.ts` serves) on
 * `Deno.serve`, free loopback ports, real HTTP. Run from the repo root:
 *
 *   npx deno test --config test/deno/deno.json --allow-net --allow-read --allow-env --cached-only --no-check test/deno/
 */
import type { EmbedderSource } from '../../src/hono/index.js';
import { denoHandler } from '../../src/hono/index.js';
import { demoRegistry } from '../../worker/deno.js';
import { startModelFixture } from '../worker/model-fixture.js';
import type { Endpoint, SuiteTarget } from '../worker/suite.js';
import { CHECKS } from '../worker/suite.js';
import { countingEmbedder } from '../embed/counting-embedder.js';

const TOKEN = 'deno-suite-token-0123456789abcdef';
const API_KEY = 'sk-deno-suite-model-key';
const ORIGIN = 'https://demo.example';

/**
 * USE-lite when the model folder is built (npm run build:model); else a counting stand-in.
 * No FFI is needed (the USE-lite tokenizer is plain JS), so `--allow-read` suffices.
 */
async function embedder(): Promise<EmbedderSource> {
  const folder = new URL('../../models/use-lite/', import.meta.url);
  try {
    await Deno.stat(new URL('vocab.json', folder));
  } catch {
    return countingEmbedder();
  }
  const { useLiteEmbedder } = await import('../../src/adapters/use-lite.js');
  return () => useLiteEmbedder({ modelPath: folder.pathname, dtype: 'int8', device: 'wasm' });
}

Deno.test({
  name: 'worker API on Deno (Deno.serve)',
  // Servers and the model fixture live across the steps; they are closed at the end.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const model = await startModelFixture();
    const servers: Deno.HttpServer[] = [];
    const serve = (vars: Record<string, string | undefined>, extra = {}): Endpoint => {
      const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: () => {} }, denoHandler({ vars, registry: demoRegistry(), onError: () => undefined, ...extra }));
      servers.push(server);
      return { baseURL: `http://127.0.0.1:${server.addr.port}` };
    };
    try {
      const target: SuiteTarget = {
        api: serve(
          { LOOPCTL_TOKEN: TOKEN, MODEL_BASE_URL: model.baseURL, MODEL_NAME: 'scripted', MODEL_API_KEY: API_KEY, CORS_ORIGINS: ORIGIN },
          { embedder: await embedder() },
        ),
        unconfigured: serve({ MODEL_BASE_URL: model.baseURL }),
        noModel: serve({ LOOPCTL_TOKEN: TOKEN, MODEL_BASE_URL: model.deadBaseURL }),
        token: TOKEN,
        modelApiKey: API_KEY,
        corsOrigin: ORIGIN,
        modelControlURL: model.controlURL,
        embedding: true,
      };
      for (const check of CHECKS) {
        const ok = await t.step(check.name, () => check.run(target));
        if (!ok) console.error(`failed: ${check.name}`);
      }
    } finally {
      await Promise.all(servers.map((server) => server.shutdown()));
      await model.close();
    }
  },
});
