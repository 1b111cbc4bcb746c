/**
 * The selecting proxy on Deno (`denoHandler` on `Deno.serve`), driven by the real client
 * libraries (`openai`, `@anthropic-ai/sdk`, `ai` + `@ai-sdk/openai`) against the scripted
 * upstream, with the same checks as Node and workerd (`test/proxy/proxy-suite.ts`). No
 * embedder, so the default selector is `keyword`. Run from the repo root:
 *
 *   npx deno test --config test/deno/deno.json --allow-net --allow-read --allow-env --allow-sys=hostname --cached-only --no-check test/deno/proxy.test.ts
 *
 * (`--allow-sys=hostname`: `ai` pulls in `@vercel/oidc`, which reads the host name at import.)
 */
import { denoHandler } from '../../src/hono/index.js';
import { demoRegistry } from '../../worker/deno.js';
import { GATEWAY_CHECKS } from '../proxy/gateway-suite.js';
import type { ProxyEndpoint, ProxyTarget } from '../proxy/proxy-suite.js';
import { PROXY_CHECKS } from '../proxy/proxy-suite.js';
import { startUpstreamFixture } from '../proxy/upstream-fixture.js';

const TOKEN = 'deno-proxy-token-0123456789abcdef';
const API_KEY = 'sk-deno-proxy-upstream-key';

Deno.test({
  name: 'selecting proxy on Deno (Deno.serve), real clients',
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const upstream = await startUpstreamFixture();
    const servers: Deno.HttpServer[] = [];
    const serve = (vars: Record<string, string | undefined>): ProxyEndpoint => {
      const server = Deno.serve(
        { port: 0, hostname: '127.0.0.1', onListen: () => {} },
        denoHandler({ vars, registry: demoRegistry(), onError: () => undefined }),
      );
      servers.push(server);
      return { baseURL: `http://127.0.0.1:${server.addr.port}`, fetch: (input, init) => fetch(input, init) };
    };
    const upstreams = {
      PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL,
      PROXY_ANTHROPIC_BASE_URL: upstream.anthropicBaseURL,
    };
    try {
      const target: ProxyTarget = {
        api: serve({ LOOPCTL_TOKEN: TOKEN, MODEL_API_KEY: API_KEY, PROXY_ANTHROPIC_API_KEY: API_KEY, ...upstreams }),
        passthrough: serve({ PROXY_AUTH: 'passthrough', ...upstreams }),
        deadUpstream: serve({
          LOOPCTL_TOKEN: TOKEN,
          PROXY_OPENAI_BASE_URL: `${upstream.deadURL}/v1`,
          PROXY_ANTHROPIC_BASE_URL: upstream.deadURL,
        }),
        slow: serve({
          LOOPCTL_TOKEN: TOKEN,
          ...upstreams,
          PROXY_FIRST_BYTE_TIMEOUT_MS: '1500',
          PROXY_KEEPALIVE_MS: '300',
        }),
        token: TOKEN,
        upstreamKey: API_KEY,
        controlURL: upstream.controlURL,
        defaultSelector: 'keyword',
        k: 8,
      };
      for (const check of [...PROXY_CHECKS, ...GATEWAY_CHECKS]) {
        await t.step(check.name, () => check.run(target));
      }
    } finally {
      await Promise.all(servers.map((server) => server.shutdown()));
      await upstream.close();
    }
  },
});
