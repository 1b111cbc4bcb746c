/**
 * The gateway over MCP Streamable HTTP, through the real SDK client's
 * StreamableHTTPClientTransport: `loopctl mcp --http` as a user starts it (a real socket on
 * 127.0.0.1, the published filesystem server behind it), and `gatewayHttp` in-process (its
 * sessions, its token, and what it refuses).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpGateway } from '../../src/adapters/mcp/gateway.js';
import { type GatewayHttp, gatewayHttp } from '../../src/adapters/mcp/gateway-http.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { serverBin } from './npm-servers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/loopctl.mjs');
const ODD = fileURLToPath(new URL('./fixtures/odd-names-server.mjs', import.meta.url));

let base: string;
let files: string;
let config: string;
const clients: Client[] = [];

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'loopctl-gateway-http-'));
  files = join(base, 'files');
  await mkdir(files);
  await writeFile(join(files, 'notes.txt'), 'Served over Streamable HTTP.\n');
  config = join(base, 'mcp.json');
  const node = process.execPath;
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        filesystem: { command: node, args: [serverBin('filesystem'), files] },
        'odd.tools': { command: node, args: [ODD] },
      },
    }),
  );
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await rm(base, { recursive: true, force: true });
});

const text = (result: CallToolResult): string =>
  result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');

async function connect(url: URL, options: ConstructorParameters<typeof StreamableHTTPClientTransport>[1] = {}) {
  const client = new Client({ name: 'gateway-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, options));
  clients.push(client);
  return client;
}

async function search(client: Client, query: string, limit = 5) {
  const result = (await client.callTool({ name: 'search_tools', arguments: { query, limit } })) as CallToolResult;
  expect(result.isError, text(result)).toBeFalsy();
  return JSON.parse(text(result)) as { tools: { name: string; server: string }[]; rankedBy: string };
}

describe('loopctl mcp --http: the gateway as a remote MCP server', () => {
  let child: ChildProcess;
  let url: URL;
  let stderr = '';

  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--config', config, '--selector', 'bm25'], {
      cwd: base,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await new Promise<URL>((resolve, reject) => {
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const found = /Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (found) resolve(new URL(found[1] as string));
      });
      child.once('exit', (code) => reject(new Error(`loopctl mcp --http exited ${code}: ${stderr}`)));
    });
  });

  afterAll(async () => {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGINT');
    await exited;
  });

  it('lists the fixed surface, finds a filesystem tool and calls it on a real file', async () => {
    const client = await connect(url);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
    const found = await search(client, 'read the contents of a text file');
    const read = found.tools.find((tool) => /^filesystem__read_(text_)?file$/.test(tool.name));
    expect(read, found.tools.map((tool) => tool.name).join(', ')).toBeDefined();
    const result = (await client.callTool({
      name: 'call_tool',
      arguments: { name: read?.name, arguments: { path: join(files, 'notes.txt') } },
    })) as CallToolResult;
    expect(text(result)).toContain('Served over Streamable HTTP.');
  });

  it('serves two clients at once, each with its own session', async () => {
    const [a, b] = await Promise.all([connect(url), connect(url)]);
    const [one, two] = await Promise.all([search(a, 'list a directory'), search(b, 'echo the tool name files read')]);
    expect(one.tools.some((tool) => tool.server === 'filesystem')).toBe(true);
    expect(two.tools.some((tool) => tool.server === 'odd.tools')).toBe(true);
  });

  it('refuses a Host that is not the loopback (DNS rebinding), and a session it does not know', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const { request } = await import('node:http');
    const status = (extra: Record<string, string>) =>
      new Promise<number>((done, fail) => {
        const req = request(url, { method: 'POST', headers: { ...headers, ...extra } }, (res) => {
          res.resume();
          done(res.statusCode ?? 0);
        });
        req.once('error', fail);
        req.end(JSON.stringify(initialize));
      });
    expect(await status({ host: `attacker.example:${url.port}` })).toBe(403);
    expect(await status({ 'mcp-session-id': 'no-such-session' })).toBe(404);
    expect(await status({})).toBe(200);
  });
});

describe('gatewayHttp in-process', () => {
  let gateway: McpGateway;
  let http: GatewayHttp;
  const URL_ = new URL('http://gateway.test/mcp');
  const TOKEN = 'test-token-0123456789';
  const fetcher = (input: string | URL | Request, init?: RequestInit) => http.fetch(new Request(input, init));

  beforeAll(async () => {
    gateway = new McpGateway({
      registry: new ToolRegistry(),
      servers: [{ name: 'odd.tools', config: { command: process.execPath, args: [ODD], prefix: 'odd_tools' } }],
    });
    await gateway.start();
    http = await gatewayHttp(gateway, { exposeFound: true, token: TOKEN, maxSessions: 2 });
  });

  afterAll(async () => {
    await http.close();
    await gateway.close();
  });

  const authed = { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } }, fetch: fetcher };

  it('asks for the token, and answers with it', async () => {
    const refused = await http.fetch(new Request(URL_, { method: 'POST', body: '{}' }));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await http.fetch(
      new Request(URL_, { method: 'POST', body: '{}', headers: { authorization: 'Bearer nope' } }),
    );
    expect(wrong.status).toBe(401);
    const client = await connect(URL_, authed);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
  });

  it("keeps each session's found tools its own: one client's search never changes another's list", async () => {
    const a = await connect(URL_, authed);
    const b = await connect(URL_, authed);
    const changed = new Promise<void>((done) =>
      a.setNotificationHandler(ToolListChangedNotificationSchema, () => done()),
    );
    const found = await search(a, 'draw a tiny picture', 1);
    await changed;
    expect((await a.listTools()).tools.map((tool) => tool.name)).toEqual([
      'search_tools',
      'call_tool',
      ...found.tools.map((tool) => tool.name),
    ]);
    expect((await b.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
    // b may not call a's found tool by its own name: only through call_tool.
    const direct = (await b.callTool({ name: found.tools[0]?.name as string, arguments: {} })) as CallToolResult;
    expect(direct.isError).toBe(true);
  });

  it('holds at most maxSessions sessions, closing the least recently used', () => {
    expect(http.sessions).toBeLessThanOrEqual(2);
  });
});
