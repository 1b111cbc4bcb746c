/**
 * `/mcp` in real workerd over real sockets: `worker/workers.ts` bundled as wrangler would and
 * served by Miniflare, each request its own request context (the vitest workers pool runs a
 * test in one). So an upstream connection opened while serving one request and used by a later
 * one, or closed when its request ended, shows here as it would in production. The real MCP SDK
 * client talks to the worker; the SDK's notes server (Node, loopback) is the upstream.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpTestServer, startNotesServer } from '../mcp/servers.js';
import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS } from '../workers/constants.js';

const TOKEN = 'workerd-mcp-token-0123456789';
const NOTES_TOKEN = 'workerd-mcp-notes-secret';

let notes: McpTestServer;
let mf: Miniflare | undefined;
let outdir: string;
let endpoint: URL;
const clients: Client[] = [];

beforeAll(async () => {
  notes = await startNotesServer({ token: NOTES_TOKEN });
  outdir = mkdtempSync(join(tmpdir(), 'loopctl-workerd-mcp-'));
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
    logLevel: 'error',
  });
  const servers = {
    mcpServers: {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the worker expands it from a binding
      notes: { url: notes.url, headers: { Authorization: 'Bearer ${NOTES_TOKEN}' } },
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
    },
    loopctl: { exposeFound: true },
  };
  mf = new Miniflare({
    // Listed, not walked: the bundle keeps loopctl/mcp's stdio transport, whose Node import
    // takes a variable specifier (never reached on Workers) that Miniflare cannot resolve.
    modules: [{ type: 'ESModule', path: script }],
    modulesRoot: outdir,
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: [...COMPATIBILITY_FLAGS],
    durableObjects: { MCP_SESSIONS: 'McpSessionsObject' },
    bindings: { LOOPCTL_TOKEN: TOKEN, LOOPCTL_MCP_SERVERS: JSON.stringify(servers), NOTES_TOKEN },
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
    cf: false,
  });
  await mf.ready;
  endpoint = new URL('/mcp', (await mf.unsafeGetDirectURL()).origin);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await mf?.dispose();
  await notes?.close();
  rmSync(outdir, { recursive: true, force: true });
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'workerd-mcp-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
  );
  clients.push(client);
  return client;
}

const text = (result: CallToolResult): string =>
  result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');

async function search(client: Client, query: string, limit = 3) {
  const result = (await client.callTool({ name: 'search_tools', arguments: { query, limit } })) as CallToolResult;
  expect(result.isError, text(result)).toBeFalsy();
  return JSON.parse(text(result)) as { tools: { name: string }[]; unavailable: { server: string; error: string }[] };
}

describe('/mcp in workerd, one request context per request', () => {
  it('serves search, call and found tools from separate requests, each with its own upstream connection', async () => {
    const client = await connect();
    // initialize has answered and its request context is gone.
    await sleep(300);
    const first = await search(client, 'read the text of a workspace file');
    expect(first.tools.map((tool) => tool.name)).toContain('notes__read_file');
    expect(first.unavailable.map((u) => u.server)).toEqual(['memory']);
    await sleep(300);
    const read = (await client.callTool({
      name: 'call_tool',
      arguments: { name: 'notes__read_file', arguments: { path: 'README.md' } },
    })) as CallToolResult;
    expect(text(read)).toContain('A small agent loop.');
    // A later request reaches the upstream again (a connection from an earlier one would fail).
    await sleep(300);
    const changed = new Promise<void>((done) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => done()),
    );
    const again = await search(client, 'pin a note so it shows first', 2);
    expect(again.unavailable.map((u) => u.server)).toEqual(['memory']);
    await changed;
    // Both searches' finds, in the order found, kept in the Durable Object between requests.
    const names = [...new Set([...first.tools, ...again.tools].map((tool) => tool.name))];
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool', ...names]);
    const pinned = (await client.callTool({ name: 'notes__pin_note', arguments: { id: 'n1' } })) as CallToolResult;
    expect(text(pinned)).toBe('pinned n1');
    await client.transport?.close();
  });
});
