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
import type { Endpoint, RawExchange, RawReply, SuiteTarget } from '../worker/suite.js';
import { CHECKS, parseRawReply } from '../worker/suite.js';

/** Raw HTTP/1.1 over `Deno.connect`, for requests `fetch` will not send (the suite's `raw`). */
async function rawHttp(port: number, exchange: RawExchange): Promise<RawReply> {
  const connection = await Deno.connect({ hostname: '127.0.0.1', port });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let text = '';
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    connection.close();
  }, exchange.timeoutMs ?? 5000);
  try {
    await connection.write(
      encoder.encode(`${exchange.head}\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n${exchange.body ?? ''}`),
    );
    const buffer = new Uint8Array(16 * 1024);
    while (true) {
      const read = await connection.read(buffer).catch(() => null);
      if (read === null) break;
      text += decoder.decode(buffer.subarray(0, read), { stream: true });
      if (parseRawReply(text, false).complete) break;
    }
  } finally {
    clearTimeout(timer);
    if (!timedOut) connection.close();
  }
  const { complete: _, ...reply } = parseRawReply(text, timedOut);
  return reply;
}

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
      const server = Deno.serve(
        { port: 0, hostname: '127.0.0.1', onListen: () => {} },
        denoHandler({ vars, registry: demoRegistry(), onError: () => undefined, ...extra }),
      );
      servers.push(server);
      const { port } = server.addr;
      return { baseURL: `http://127.0.0.1:${port}`, raw: (exchange: RawExchange) => rawHttp(port, exchange) };
    };
    try {
      const target: SuiteTarget = {
        api: serve(
          {
            LOOPCTL_TOKEN: TOKEN,
            MODEL_BASE_URL: model.baseURL,
            MODEL_NAME: 'scripted',
            MODEL_API_KEY: API_KEY,
            CORS_ORIGINS: ORIGIN,
          },
          { embedder: await embedder() },
        ),
        unconfigured: serve({ MODEL_BASE_URL: model.baseURL }),
        noModel: serve({ LOOPCTL_TOKEN: TOKEN, MODEL_BASE_URL: model.deadBaseURL }),
        token: TOKEN,
        modelApiKey: API_KEY,
        corsOrigin: ORIGIN,
        modelControlURL: model.controlURL,
        embedding: true,
        // Deno's HTTP server answers a malformed Content-Length itself (400, no body).
        runtimeRefusesBadLength: true,
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

Deno.test({
  name: "use-lite on Deno: 'native' (onnxruntime-node) is a clear error; 'auto' runs WASM without a warning",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const folder = new URL('../../models/use-lite/', import.meta.url);
    const { useLiteEmbedder } = await import('../../src/adapters/use-lite.js');
    const warnings: string[] = [];
    const onWarning = (message: string) => warnings.push(message);
    const native = useLiteEmbedder({ modelPath: folder.pathname, device: 'native', onWarning });
    const failure = await native.load().then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    const expected =
      "use-lite: device 'native' needs onnxruntime-node: onnxruntime-node runs only in Node (this is Deno); use 'wasm' or 'auto'";
    if (failure !== expected)
      throw new Error(`device 'native' on Deno: expected "${expected}", got ${JSON.stringify(failure)}`);
    const auto = useLiteEmbedder({ modelPath: folder.pathname, onWarning });
    const [vector] = await auto.embed(['weather in Paris tomorrow']);
    if (auto.backend?.device !== 'wasm') throw new Error(`'auto' on Deno ran on ${auto.backend?.device}`);
    if (vector?.length !== 512) throw new Error(`expected a 512-d vector, got ${vector?.length}`);
    if (warnings.length !== 0) throw new Error(`'auto' on Deno warned: ${warnings.join('; ')}`);
    await auto.dispose();
  },
});
