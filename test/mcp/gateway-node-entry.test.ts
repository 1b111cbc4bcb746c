/**
 * `/mcp` from the Node entry (`startNodeServer`, what `loopctl serve` and worker/node.ts run):
 * the same route as the worker's, through the real MCP SDK client over a real socket, in front
 * of the SDK's notes server over Streamable HTTP, a stdio server (Node may start processes), and
 * a server that is down. Found tools (`exposeFound`) are kept in this process's memory.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startNodeServer } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { type McpTestServer, startNotesServer } from './servers.js';

const ODD = fileURLToPath(new URL('./fixtures/odd-names-server.mjs', import.meta.url));
const TOKEN = 'node-entry-gateway-token-0123';
const NOTES_TOKEN = 'notes-secret-for-node-entry';

let notes: McpTestServer;
let server: RunningServer;
const clients: Client[] = [];

beforeAll(async () => {
  notes = await startNotesServer({ token: NOTES_TOKEN });
  const config = {
    mcpServers: {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the entry expands it from its variables
      notes: { url: notes.url, headers: { Authorization: 'Bearer ${NOTES_TOKEN}' } },
      'odd.tools': { command: process.execPath, args: [ODD] },
      gone: { url: 'http://127.0.0.1:9/mcp' },
    },
    loopctl: { exposeFound: true },
  };
  server = await startNodeServer({
    registry: new ToolRegistry(),
    port: 0,
    vars: { LOOPCTL_TOKEN: TOKEN, LOOPCTL_MCP_SERVERS: JSON.stringify(config), NOTES_TOKEN },
  });
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await server?.close();
  await notes?.close();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'node-entry-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  clients.push(client);
  return client;
}

const text = (result: CallToolResult): string =>
  result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');

describe('/mcp on the Node entry', () => {
  it('refuses a request without the token', async () => {
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(response.status).toBe(401);
  });

  it('searches every server, names the one that is down, calls a tool and lists what it found', async () => {
    const client = await connect();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
    const changed = new Promise<void>((done) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => done()),
    );
    const result = (await client.callTool({
      name: 'search_tools',
      arguments: { query: 'read the text of a workspace file', limit: 3 },
    })) as CallToolResult;
    const found = JSON.parse(text(result)) as {
      tools: { name: string }[];
      unavailable: { server: string; error: string }[];
    };
    const names = found.tools.map((tool) => tool.name);
    expect(names).toContain('notes__read_file');
    expect(found.unavailable.map((u) => u.server)).toEqual(['gone']);
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool', ...names]);
    const read = (await client.callTool({
      name: 'notes__read_file',
      arguments: { path: 'README.md' },
    })) as CallToolResult;
    expect(text(read)).toContain('A small agent loop.');
    // The stdio server runs here, unlike on Workers.
    const odd = (await client.callTool({
      name: 'search_tools',
      arguments: { query: 'echo the tool name files read', limit: 5 },
    })) as CallToolResult;
    expect(text(odd)).toContain('"server":"odd.tools"');
    // A second client starts with the fixed list.
    const other = await connect();
    expect((await other.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
  });
});
