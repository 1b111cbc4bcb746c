/**
 * Issue 50 in workerd: the MCP gateway at `/mcp` of the demo worker, through the real MCP SDK
 * client (StreamableHTTPClientTransport, its fetch pointed at the worker), in front of real
 * upstreams on loopback (global setup): the SDK's own notes server behind a bearer token read
 * from a binding, one that lists garbage, one that is down, and a stdio entry Workers cannot run.
 * "A fresh isolate" is the worker called with a copy of its bindings: it builds its own app and
 * gateway, as a new isolate would, and shares only the Durable Objects and KV.
 */
import { env } from 'cloudflare:test';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkerEnv } from '../../src/hono/index.js';
import { createWorker } from '../../src/hono/index.js';
import { ToolRegistry } from '../../src/index.js';
import { demoWorker } from '../../worker/workers.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import { NOTES_TOKEN, TEST_TOKEN } from './constants.js';

const MCP_URL = new URL('http://loopctl.test/mcp');

/** The upstreams' URLs, from the bindings the suite's config sets (global setup started them). */
const urls = env as unknown as { MCP_NOTES_URL: string; MCP_GARBAGE_URL: string; PROXY_DEAD_URL: string };

/** The gateway's configuration, as an editor's `mcpServers` file carries it. */
function config(options: { exposeFound?: boolean } = {}): string {
  return JSON.stringify({
    mcpServers: {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the worker expands it from a binding
      notes: { url: urls.MCP_NOTES_URL, headers: { Authorization: 'Bearer ${NOTES_TOKEN}' } },
      junk: { type: 'http', url: urls.MCP_GARBAGE_URL },
      gone: { url: `${urls.PROXY_DEAD_URL}/mcp` },
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
    },
    ...(options.exposeFound ? { loopctl: { exposeFound: true } } : {}),
  });
}

/** A fresh isolate's bindings: its own app and gateway, the same Durable Objects. */
function isolate(servers: string): WorkerEnv {
  return { ...(env as unknown as WorkerEnv), LOOPCTL_MCP_SERVERS: servers, NOTES_TOKEN } as WorkerEnv;
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
});

/** An SDK client whose requests go to `isolates` in turn (one isolate: every request to it). */
async function connect(isolates: WorkerEnv[], token = TEST_TOKEN): Promise<{ client: Client; served: number[] }> {
  const worker = demoWorker();
  const served: number[] = [];
  let next = 0;
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const at = next++ % isolates.length;
    served.push(at);
    return worker.fetch(new Request(input, init), isolates[at] as WorkerEnv);
  };
  const client = new Client({ name: 'workerd-gateway-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(MCP_URL, {
      fetch,
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return { client, served };
}

const text = (result: CallToolResult): string =>
  result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');

interface Found {
  tools: { name: string; server: string; inputSchema: object }[];
  rankedBy: string;
  unavailable: { server: string; error: string }[];
}

async function search(client: Client, query: string, limit = 5): Promise<Found> {
  const result = (await client.callTool({ name: 'search_tools', arguments: { query, limit } })) as CallToolResult;
  expect(result.isError, text(result)).toBeFalsy();
  return JSON.parse(text(result)) as Found;
}

describe('/mcp on Workers: the gateway as a remote MCP server', () => {
  it('lists the fixed surface, searches the remote upstream, and calls its tool with the header from a binding', async () => {
    const { client } = await connect([isolate(config())]);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
    const found = await search(client, 'read the text of a workspace file');
    expect(found.rankedBy).toBe('bm25');
    const read = found.tools.find((tool) => tool.name === 'notes__read_file');
    expect(read, found.tools.map((tool) => tool.name).join(', ')).toBeDefined();
    expect(read?.server).toBe('notes');
    const result = (await client.callTool({
      name: 'call_tool',
      arguments: { name: 'notes__read_file', arguments: { path: 'README.md' } },
    })) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    expect(text(result)).toContain('A small agent loop.');
  });

  it('serves MCP 2026-07-28 to the SDK v2 client: discover, search and call, every request to a fresh isolate', async () => {
    const worker = demoWorker();
    const servers = config({ exposeFound: true });
    const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
      worker.fetch(new Request(input, init), isolate(servers));
    const client = new ModernClient(
      { name: 'workerd-gateway-test', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new ModernTransport(MCP_URL, { fetch, requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      // exposeFound is a 2025-era feature: a modern list never varies per connection.
      expect(client.getServerCapabilities()?.tools?.listChanged).toBeFalsy();
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
      const searched = await client.callTool({ name: 'search_tools', arguments: { query: 'read a workspace file' } });
      const found = JSON.parse(text(searched as CallToolResult)) as Found;
      expect(found.tools.map((tool) => tool.name)).toContain('notes__read_file');
      const result = (await client.callTool({
        name: 'call_tool',
        arguments: { name: 'notes__read_file', arguments: { path: 'README.md' } },
      })) as CallToolResult;
      expect(result.isError, text(result)).toBeFalsy();
      expect(text(result)).toContain('A small agent loop.');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
    } finally {
      await client.close();
    }
  });

  it('names the garbage, the dead and the stdio upstreams in search results; the gateway keeps serving', async () => {
    const { client } = await connect([isolate(config())]);
    const found = await search(client, 'create a note');
    expect(found.tools.map((tool) => tool.name)).toContain('notes__create_note');
    const down = Object.fromEntries(found.unavailable.map((u) => [u.server, u.error]));
    expect(Object.keys(down).sort()).toEqual(['gone', 'junk', 'memory']);
    expect(down.memory).toMatch(/stdio servers \(a "command"\) cannot run on Cloudflare Workers/);
    expect(down.gone).not.toBe('');
    // A call to a tool no server has is a tool error naming what is down, never a failed request.
    // The worker connects only to the server the name's prefix names: the one listing garbage.
    const missing = (await client.callTool({
      name: 'call_tool',
      arguments: { name: 'junk__anything', arguments: {} },
    })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/no MCP server behind this gateway has a tool named "junk__anything"/);
    expect(text(missing)).toMatch(/servers unavailable: junk \(MCP server junk unreachable/);
  });

  it('serves one session from two isolates in turn: found tools kept in the Durable Object', async () => {
    const servers = config({ exposeFound: true });
    const { client, served } = await connect([isolate(servers), isolate(servers)]);
    const changed = new Promise<void>((done) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => done()),
    );
    const found = await search(client, 'pin a note so it shows first', 2);
    await changed;
    const names = found.tools.map((tool) => tool.name);
    expect(names).toContain('notes__pin_note');
    // The next requests land on the other isolate, which never saw the search.
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    expect(listed).toEqual(['search_tools', 'call_tool', ...names]);
    const pinned = (await client.callTool({ name: 'notes__pin_note', arguments: { id: 'n1' } })) as CallToolResult;
    expect(text(pinned)).toBe('pinned n1');
    expect(new Set(served)).toEqual(new Set([0, 1]));
    // Another session sees none of them.
    const other = await connect([isolate(servers)]);
    expect((await other.client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
    // Ending the session (DELETE) forgets its list in the Durable Object.
    const transport = client.transport as StreamableHTTPClientTransport;
    const session = transport.sessionId as string;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    await transport.terminateSession();
    const relist = await demoWorker().fetch(
      new Request(MCP_URL, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      }),
      isolate(servers),
    );
    expect(relist.status).toBe(200);
    const event = /data: (.*)/.exec(await relist.text())?.[1] ?? '{}';
    const tools = (JSON.parse(event) as { result?: { tools?: { name: string }[] } }).result?.tools ?? [];
    expect(tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
  });

  it("ranks with the hybrid when the worker has an embedder, its tool vectors kept by the isolate's selector", async () => {
    const embedder = countingEmbedder({ id: 'test/mcp-gateway-hybrid' });
    const worker = createWorker({ registry: () => new ToolRegistry(), embedder: () => embedder });
    const bindings = isolate(config());
    const client = new Client({ name: 'workerd-gateway-hybrid', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(MCP_URL, {
        fetch: (input, init) => worker.fetch(new Request(input, init), bindings),
        requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } },
      }),
    );
    clients.push(client);
    const first = await search(client, 'read the text of a workspace file');
    expect(first.rankedBy).toBe('hybrid');
    expect(first.tools.map((tool) => tool.name)).toContain('notes__read_file');
    const embedded = embedder.texts.length;
    // The next request connects to the upstream again, but embeds only its query.
    const second = await search(client, 'create a note');
    expect(second.rankedBy).toBe('hybrid');
    expect(embedder.texts.length - embedded).toBe(1);
  });

  it('is behind the worker token, refuses GET streams, and bounds the body', async () => {
    const worker = demoWorker();
    const bindings = isolate(config());
    const post = (body: string, headers: Record<string, string> = {}) =>
      worker.fetch(
        new Request(MCP_URL, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        }),
        bindings,
      );
    expect((await post('{}')).status).toBe(401);
    expect((await post('{}', { authorization: 'Bearer wrong-token' })).status).toBe(401);
    const auth = { authorization: `Bearer ${TEST_TOKEN}` };
    const big = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(300_000) } }),
      auth,
    );
    expect(big.status).toBe(413);
    expect((await post('not json', auth)).status).toBe(400);
    const get = await worker.fetch(
      new Request(MCP_URL, { headers: { ...auth, accept: 'text/event-stream' } }),
      bindings,
    );
    expect(get.status).toBe(405);
    // Without servers configured the route says which variable turns it on.
    const off = await worker.fetch(new Request(MCP_URL, { method: 'POST', body: '{}', headers: auth }), {
      ...(env as unknown as WorkerEnv),
    });
    expect(off.status).toBe(404);
    expect(await off.text()).toContain('LOOPCTL_MCP_SERVERS');
  });
});
