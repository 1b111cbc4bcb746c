/**
 * The app's `/mcp` on Deno (`denoHandler` on `Deno.serve`) answers MCP 2026-07-28: a
 * `server/discover` and a `tools/list` in the per-request envelope, with no `initialize`, behind
 * the token; and a 2025-era `initialize` on the same endpoint. The one upstream is down (a
 * loopback port nothing listens on), which the fixed surface does not need. Run from the repo
 * root:
 *
 *   npx deno test --config test/deno/deno.json --allow-net --allow-read --allow-env --cached-only --no-check --unstable-no-legacy-abort test/deno/mcp-modern.test.ts
 */
import { denoHandler } from '../../src/hono/index.js';
import { ToolRegistry } from '../../src/index.js';

const TOKEN = 'deno-mcp-token-0123456789abcdef';
const MODERN = '2026-07-28';

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** A free loopback port, closed again: connections to it are refused. */
function deadURL(): string {
  const listener = Deno.listen({ hostname: '127.0.0.1', port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return `http://127.0.0.1:${port}/mcp`;
}

const envelope = (method: string, id: number) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'deno-test', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

Deno.test({
  name: '/mcp on Deno serves MCP 2026-07-28 and the 2025 era',
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const vars = {
      LOOPCTL_TOKEN: TOKEN,
      LOOPCTL_MCP_SERVERS: JSON.stringify({ mcpServers: { gone: { url: deadURL() } } }),
    };
    const server = Deno.serve(
      { port: 0, hostname: '127.0.0.1', onListen: () => {} },
      denoHandler({ vars, registry: new ToolRegistry(), onError: () => undefined }),
    );
    const url = `http://127.0.0.1:${server.addr.port}/mcp`;
    const post = async (body: unknown, headers: Record<string, string>, token = TOKEN) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      // A JSON answer, or one SSE event carrying it.
      const json = text.startsWith('{') ? text : (/data: (.*)/.exec(text)?.[1] ?? '{}');
      return { status: response.status, body: JSON.parse(json) as { result?: Record<string, unknown> } };
    };
    try {
      const modern = (method: string) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': method });
      const refused = await post(envelope('server/discover', 1), modern('server/discover'), 'wrong-token');
      assert(refused.status === 401, `a wrong token got ${refused.status}`);

      const discover = await post(envelope('server/discover', 2), modern('server/discover'));
      assert(discover.status === 200, `server/discover answered ${discover.status}`);
      const versions = discover.body.result?.supportedVersions as string[] | undefined;
      assert(versions?.includes(MODERN), `supportedVersions: ${JSON.stringify(versions)}`);

      const list = await post(envelope('tools/list', 3), modern('tools/list'));
      assert(list.status === 200, `tools/list answered ${list.status}`);
      const names = ((list.body.result?.tools ?? []) as { name: string }[]).map((tool) => tool.name);
      assert(names.join() === 'search_tools,call_tool', `listed ${names.join()}`);

      const legacy = await post(
        {
          jsonrpc: '2.0',
          id: 4,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
        },
        {},
      );
      assert(legacy.status === 200, `initialize answered ${legacy.status}`);
      assert(legacy.body.result?.protocolVersion === '2025-06-18', `negotiated ${legacy.body.result?.protocolVersion}`);
    } finally {
      await server.shutdown();
    }
  },
});
