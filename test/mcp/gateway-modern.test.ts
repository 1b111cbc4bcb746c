/**
 * MCP 2026-07-28 from the gateway, through the real SDK v2 client (`@modelcontextprotocol/client`
 * 2.4.0, negotiating as its `versionNegotiation: { mode: 'auto' }` does): `loopctl mcp --http`
 * and `loopctl mcp` over stdio, each with the published filesystem server behind it. The 1.x
 * client is served on the same endpoint (its 2025 era), and a 2099 version gets -32022. Last, a
 * copy of the built package without `@modelcontextprotocol/server` (the optional peer): it still
 * serves the 2025 era and names the package to a modern request.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpGateway } from '../../src/adapters/mcp/gateway.js';
import { gatewayHttp } from '../../src/adapters/mcp/gateway-http.js';
import { memoryGatewaySessions } from '../../src/adapters/mcp/gateway-sessions.js';
import { gatewayStateless } from '../../src/adapters/mcp/gateway-stateless.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { serverBin } from './npm-servers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/loopctl.mjs');
const MODERN = '2026-07-28';

let base: string;
let files: string;
let config: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'loopctl-gateway-modern-'));
  files = join(base, 'files');
  await mkdir(files);
  await writeFile(join(files, 'notes.txt'), 'Served to a 2026-07-28 client.\n');
  config = join(base, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: { filesystem: { command: process.execPath, args: [serverBin('filesystem'), files] } },
    }),
  );
});

afterAll(async () => {
  await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
  await rm(base, { recursive: true, force: true });
});

interface ToolResult {
  content: { type: string; text?: string }[];
  isError?: boolean;
}
const text = (result: unknown): string =>
  (result as ToolResult).content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');

/** A v2 client negotiating the way a 2026 agent does: probe with server/discover, else fall back. */
function modernClient(): Client {
  const client = new Client(
    { name: 'gateway-modern-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  closers.push(() => client.close());
  return client;
}

/** Search for a file reader, then read notes.txt through call_tool: the agent's whole path. */
async function searchAndRead(client: {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}): Promise<string> {
  const searched = await client.callTool({ name: 'search_tools', arguments: { query: 'read the text of a file' } });
  expect((searched as ToolResult).isError, text(searched)).toBeFalsy();
  const found = JSON.parse(text(searched)) as { tools: { name: string }[] };
  const read = found.tools.find((tool) => /^filesystem__read_(text_)?file$/.test(tool.name));
  expect(read, JSON.stringify(found.tools.map((tool) => tool.name))).toBeDefined();
  const called = await client.callTool({
    name: 'call_tool',
    arguments: { name: read?.name, arguments: { path: join(files, 'notes.txt') } },
  });
  expect((called as ToolResult).isError, text(called)).toBeFalsy();
  return text(called);
}

/** A tools/list claiming a revision nobody serves, in the 2026-07-28 envelope. */
function futureRequest(id: number) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/list',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2099-01-01',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

async function postFuture(url: URL | string, fetcher: typeof fetch = fetch) {
  const response = await fetcher(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2099-01-01',
    },
    body: JSON.stringify(futureRequest(7)),
  });
  return {
    status: response.status,
    body: (await response.json()) as { error?: { code: number; message: string; data?: unknown } },
  };
}

describe('loopctl mcp --http: both eras on one endpoint', () => {
  let child: ChildProcess;
  let url: URL;

  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--config', config, '--selector', 'bm25'], {
      cwd: base,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    closers.push(async () => {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGINT');
      await exited;
    });
    url = await new Promise<URL>((resolve, reject) => {
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const at = /Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
        if (at) resolve(new URL(at));
      });
      child.once('exit', (code) => reject(new Error(`loopctl mcp --http exited with ${code}: ${stderr}`)));
    });
  });

  it('negotiates 2026-07-28 with a v2 client, answers server/discover, and searches then calls a filesystem tool', async () => {
    const client = modernClient();
    await client.connect(new StreamableHTTPClientTransport(url));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getProtocolEra()).toBe('modern');
    const discovered = await client.discover();
    expect(discovered.supportedVersions).toContain(MODERN);
    expect(discovered.capabilities.tools).toBeDefined();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
    expect(await searchAndRead(client)).toContain('Served to a 2026-07-28 client.');
  });

  it('answers a revision it does not serve with -32022, naming the ones it does', async () => {
    const { status, body } = await postFuture(url);
    expect(status).toBe(400);
    expect(body.error?.code).toBe(-32022);
    expect(body.error?.data).toMatchObject({ supported: [MODERN], requested: '2099-01-01' });
  });

  it('still serves the 1.x client its 2025 era, with a session', async () => {
    const client = new LegacyClient({ name: 'legacy', version: '1.0.0' });
    closers.push(() => client.close());
    const transport = new LegacyHttpTransport(url);
    await client.connect(transport);
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(transport.sessionId).toBeTruthy();
    expect(await searchAndRead(client)).toContain('Served to a 2026-07-28 client.');
  });
});

describe('gatewayStateless (the app route /mcp): both eras', () => {
  it('gives a modern client the fixed list even with exposeFound, and a 1.x client its found tools', async () => {
    const gateway = new McpGateway({
      registry: new ToolRegistry(),
      servers: [
        {
          name: 'filesystem',
          config: { command: process.execPath, args: [serverBin('filesystem'), files], prefix: 'filesystem' },
        },
      ],
      core: [],
    });
    closers.push(() => gateway.close());
    await gateway.start();
    const handle = await gatewayStateless(gateway, { exposeFound: true, sessions: memoryGatewaySessions() });
    const endpoint = 'http://gateway.test/mcp';
    const fetcher = (input: string | URL | Request, init?: RequestInit) => handle(new Request(input, init));

    const modern = modernClient();
    await modern.connect(new StreamableHTTPClientTransport(new URL(endpoint), { fetch: fetcher }));
    expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(modern.getServerCapabilities()?.tools?.listChanged).toBeFalsy();
    expect(await searchAndRead(modern)).toContain('Served to a 2026-07-28 client.');
    expect((await modern.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
    expect((await postFuture(endpoint, fetcher)).body.error?.code).toBe(-32022);

    const legacy = new LegacyClient({ name: 'legacy', version: '1.0.0' });
    closers.push(() => legacy.close());
    await legacy.connect(new LegacyHttpTransport(new URL(endpoint), { fetch: fetcher }));
    expect(legacy.getServerCapabilities()?.tools?.listChanged).toBe(true);
    await searchAndRead(legacy);
    expect((await legacy.listTools()).tools.length).toBeGreaterThan(2);
  });
});

describe('gatewayHttp in-process: the gate stands in front of the 2026-07-28 leg', () => {
  it('refuses a modern request without the token or from another host, and bounds its body', async () => {
    const gateway = new McpGateway({ registry: new ToolRegistry(), servers: [] });
    const http = await gatewayHttp(gateway, {
      token: 'test-token-0123456789',
      allowedHosts: ['gateway.test'],
      maxBodyBytes: 4096,
    });
    closers.push(() => http.close());
    const discover = { ...futureRequest(3), method: 'server/discover' };
    discover.params._meta['io.modelcontextprotocol/protocolVersion'] = MODERN;
    const post = (body: unknown, headers: Record<string, string> = {}, host = 'gateway.test') =>
      http.fetch(
        new Request(`http://${host}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            'mcp-method': 'server/discover',
            ...headers,
          },
          body: JSON.stringify(body),
        }),
      );
    const auth = { authorization: 'Bearer test-token-0123456789' };
    expect((await post(discover)).status).toBe(401);
    expect((await post(discover, auth, 'evil.test')).status).toBe(403);
    const answered = await post(discover, auth);
    expect(answered.status, await answered.clone().text()).toBe(200);
    const result = ((await answered.json()) as { result: { supportedVersions: string[] } }).result;
    expect(result.supportedVersions).toContain(MODERN);
    const padded = { ...discover, params: { ...discover.params, pad: 'x'.repeat(8192) } };
    expect((await post(padded, auth)).status).toBe(413);
    expect(http.sessions).toBe(0);
  });
});

/** One raw JSON-RPC line to a fresh stdio gateway with no upstreams, and its first answer. */
/** The v2 client (negotiating `auto`) on `loopctl mcp` over stdio, spawned from `bin`. */
async function modernStdio(bin: string): Promise<Client> {
  const client = modernClient();
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', '--config', config, '--selector', 'bm25'],
      cwd: base,
      stderr: 'ignore',
    }),
  );
  return client;
}

/** The 1.x SDK client on `loopctl mcp` over stdio, spawned from `bin` (closed after the test). */
async function legacyStdio(bin: string): Promise<LegacyClient> {
  const client = new LegacyClient({ name: 'legacy', version: '1.0.0' });
  closers.push(() => client.close());
  await client.connect(
    new LegacyStdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', '--config', config, '--selector', 'bm25'],
      cwd: base,
      stderr: 'ignore',
    }),
  );
  return client;
}

async function rawStdio(message: unknown, bin = BIN): Promise<{ error?: { code: number; message: string } }> {
  const child = spawn(process.execPath, [bin, 'mcp', '--selector', 'bm25'], {
    env: { ...process.env, LOOPCTL_MCP_SERVERS: '[]' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  try {
    const line = new Promise<string>((resolve, reject) => {
      let buffer = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        const end = buffer.indexOf('\n');
        if (end >= 0) resolve(buffer.slice(0, end));
      });
      child.once('exit', (code) => reject(new Error(`the gateway exited with ${code}`)));
    });
    child.stdin.write(`${JSON.stringify(message)}\n`);
    return JSON.parse(await line);
  } finally {
    child.stdin.end();
    await new Promise((done) => child.once('exit', done));
  }
}

describe('loopctl mcp over stdio: both eras', () => {
  it('negotiates 2026-07-28 with a v2 client, answers server/discover, and searches then calls a filesystem tool', async () => {
    const client = await modernStdio(BIN);
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect((await client.discover()).supportedVersions).toContain(MODERN);
    expect(await searchAndRead(client)).toContain('Served to a 2026-07-28 client.');
  });

  it('answers a revision it does not serve with -32022', async () => {
    const answer = await rawStdio(futureRequest(1));
    expect(answer.error?.code).toBe(-32022);
  });

  it('still serves the 1.x client (its initialize) on the same command', async () => {
    const client = await legacyStdio(BIN);
    expect(await searchAndRead(client)).toContain('Served to a 2026-07-28 client.');
  });
});

describe('without the optional peer @modelcontextprotocol/server', () => {
  let bin: string;

  beforeAll(async () => {
    // The built package as a user without SDK v2 has it: dist/ and bin/ copied (a link would
    // resolve imports from this checkout's node_modules), only SDK 1.x beside it.
    const app = join(base, 'no-v2');
    await mkdir(join(app, 'node_modules/@modelcontextprotocol'), { recursive: true });
    await cp(join(ROOT, 'dist'), join(app, 'dist'), { recursive: true, filter: (path) => !path.endsWith('.map') });
    await cp(join(ROOT, 'bin'), join(app, 'bin'), { recursive: true });
    await cp(join(ROOT, 'package.json'), join(app, 'package.json'));
    await symlink(
      join(ROOT, 'node_modules/@modelcontextprotocol/sdk'),
      join(app, 'node_modules/@modelcontextprotocol/sdk'),
    );
    bin = join(app, 'bin/loopctl.mjs');
  });

  it('serves a 1.x client over stdio, and answers a modern request with -32022 naming the package', async () => {
    const client = await legacyStdio(bin);
    expect(await searchAndRead(client)).toContain('Served to a 2026-07-28 client.');
    const answer = await rawStdio(futureRequest(1), bin);
    expect(answer.error?.code).toBe(-32022);
    expect(answer.error?.message).toContain('npm install @modelcontextprotocol/server');
  });

  it('lets a negotiating v2 client fall back to the 2025 era', async () => {
    const client = await modernStdio(bin);
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(await searchAndRead(client)).toContain('Served to a 2026-07-28 client.');
  });
});
