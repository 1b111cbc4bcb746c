/**
 * The MCP gateway end to end, as an IDE agent runs it: the real MCP SDK client spawns
 * `node bin/loopctl.mjs mcp --config FILE` over stdio, and the gateway mounts real published
 * servers from npm (`@modelcontextprotocol/server-filesystem` on a temp folder, `-memory`,
 * `-everything` in stdio mode) beside a fixture with awkward names, one that lists garbage, one
 * whose command does not exist and one on a transport the gateway does not mount.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverBin } from './npm-servers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/loopctl.mjs');
const ODD = fileURLToPath(new URL('./fixtures/odd-names-server.mjs', import.meta.url));
const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const HAS_MODEL = existsSync(join(ROOT, 'models/use-lite/vocab.json'));

let base: string;
let files: string;
let config: string;
const clients: Client[] = [];

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'loopctl-gateway-'));
  files = join(base, 'files');
  await mkdir(files);
  await writeFile(join(files, 'notes.txt'), 'The gateway passed this file through.\n');
  const node = process.execPath;
  config = join(base, 'mcp.json');
  // JSONC, as VS Code writes it: a comment and a trailing comma.
  await writeFile(
    config,
    `// the servers an IDE user already has
    ${JSON.stringify(
      {
        mcpServers: {
          filesystem: { command: node, args: [serverBin('filesystem'), files] },
          memory: { command: node, args: [serverBin('memory')], env: { MEMORY_FILE_PATH: join(base, 'memory.jsonl') } },
          everything: { command: node, args: [serverBin('everything'), 'stdio'] },
          'odd.tools': { command: node, args: [ODD] },
          garbage: { command: node, args: [ODD], env: { GARBAGE: '1' } },
          missing: { command: join(base, 'no-such-server') },
          legacy: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
          off: { command: node, args: [ODD], disabled: true },
        },
        loopctl: { core: ['memory__read_graph'], maxResultChars: 5000 },
      },
      null,
      1,
    ).replace(/\n}$/, ',\n}')}`,
  );
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await rm(base, { recursive: true, force: true });
});

/** The gateway, started as an agent starts it, with the SDK's client. */
async function connect(...extra: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--config', config, ...extra],
    cwd: base,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr };
}

const text = (result: CallToolResult): string =>
  result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');

interface Found {
  tools: { name: string; server: string; description: string; inputSchema: { type: string } }[];
  rankedBy: string;
  unavailable: { server: string; error: string }[];
}

async function search(client: Client, query: string, limit?: number): Promise<Found> {
  const result = (await client.callTool({ name: 'search_tools', arguments: { query, limit } })) as CallToolResult;
  expect(result.isError, text(result)).toBeFalsy();
  return JSON.parse(text(result)) as Found;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name: 'call_tool', arguments: { name, arguments: args } })) as CallToolResult;

describe('loopctl mcp: the gateway over stdio', () => {
  let client: Client;
  let stderr: () => string;
  beforeAll(async () => {
    ({ client, stderr } = await connect());
  });

  it('lists a small fixed surface: search, call and the configured core tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool', 'memory__read_graph']);
    expect(tools[0]?.inputSchema.required).toEqual(['query']);
    expect(tools[0]?.description).toContain('filesystem');
    // Listed again later: the same list (a client's prompt cache holds it).
    await search(client, 'read a file');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
  });

  it('finds a filesystem tool the agent was never shown, by a prompt, and calls it on a real file', async () => {
    const found = await search(client, 'show me what is written in the text file notes.txt');
    const names = found.tools.map((tool) => tool.name);
    expect(
      names.some((name) => /^filesystem__read_(text_)?file$/.test(name)),
      names.join(', '),
    ).toBe(true);
    expect(found.rankedBy).toBe(HAS_MODEL ? 'hybrid' : 'bm25');
    const read = found.tools.find((tool) => tool.name.startsWith('filesystem__read_')) as Found['tools'][number];
    expect(read.server).toBe('filesystem');
    expect(read.inputSchema.type).toBe('object');
    const result = await call(client, read.name, { path: join(files, 'notes.txt') });
    expect(result.isError, text(result)).toBeFalsy();
    expect(text(result)).toContain('The gateway passed this file through.');
  });

  it('names every server it could not mount in search results, and keeps serving the rest', async () => {
    const found = await search(client, 'store a memory about a person');
    expect(found.tools.map((tool) => tool.name).some((name) => name.startsWith('memory__'))).toBe(true);
    const down = Object.fromEntries(found.unavailable.map((u) => [u.server, u.error]));
    expect(Object.keys(down).sort()).toEqual(['garbage', 'legacy', 'missing']);
    expect(down.missing).toMatch(/missing|no-such-server|ENOENT/);
    expect(down.legacy).toContain('SSE');
    expect(down.garbage).toMatch(/tools\/list|invalid|expected/i);
    expect(stderr()).toContain('garbage');
  });

  it('makes awkward names valid for every client and maps them back to the server', async () => {
    const found = await search(client, 'echo which tool name the server was called with files read', 10);
    const dotted = found.tools.find((tool) => tool.server === 'odd.tools' && tool.name.includes('files_read'));
    expect(dotted?.name).toBe('odd_tools__files_read_v2');
    const result = await call(client, 'odd_tools__files_read_v2');
    expect(text(result)).toContain('called as "files.read/v2"');

    const long = (await search(client, 'summarise the quarterly revenue report by region')).tools.find(
      (tool) => tool.server === 'odd.tools',
    );
    expect(long?.name).toMatch(WIRE_NAME);
    expect(long?.name.length).toBeLessThanOrEqual(64);
    expect(text(await call(client, long?.name as string))).toContain(
      'summarise_the_quarterly_revenue_report_for_every_region',
    );
  });

  it('passes content through (an image stays an image) and bounds a result that is too large', async () => {
    const picture = await call(client, 'odd_tools__picture');
    expect(picture.content).toEqual([
      { type: 'text', text: 'A red dot:' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ]);
    const huge = await call(client, 'odd_tools__huge');
    const all = text(huge);
    expect(all.length).toBeLessThan(5300);
    expect(all).toContain('result cut by the loopctl gateway: 5,000 of 180,000 characters');
  });

  it('answers an unknown name and bad arguments with errors that say what to do', async () => {
    const unknown = await call(client, 'read_text_file');
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('no MCP server behind this gateway has a tool named "read_text_file"');
    expect(text(unknown)).toContain('filesystem__read_text_file');
    const bad = (await client.callTool({ name: 'call_tool', arguments: { arguments: {} } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('call_tool needs "name"');
  });

  it('survives an upstream that dies mid-session: a clear error, the others keep working, it comes back', async () => {
    const crashed = await call(client, 'odd_tools__crash');
    expect(crashed.isError).toBe(true);
    expect(text(crashed)).toMatch(
      /MCP server odd\.tools unreachable: connection lost during tools\/call "crash".*exit/,
    );
    // The other servers were never touched.
    const read = await call(client, 'filesystem__read_text_file', { path: join(files, 'notes.txt') });
    expect(text(read)).toContain('passed this file through');
    const found = await search(client, 'read a file');
    expect(found.unavailable.map((u) => u.server)).toContain('odd.tools');
    // The next call starts the server again, as loopctl/mcp reconnects.
    const again = await call(client, 'odd_tools__files_read_v2');
    expect(again.isError, text(again)).toBeFalsy();
    expect(text(again)).toContain('called as "files.read/v2"');
  });

  it('re-lists a server that announces a change, and the next search finds the new tool', async () => {
    const before = await search(client, 'water the office plants');
    expect(before.tools.map((tool) => tool.name)).not.toContain('odd_tools__water_plants');
    expect(text(await call(client, 'odd_tools__grow'))).toBe('grown');
    let found: string[] = [];
    for (let tries = 0; tries < 50 && !found.includes('odd_tools__water_plants'); tries++) {
      await new Promise((done) => setTimeout(done, 100));
      found = (await search(client, 'water the office plants')).tools.map((tool) => tool.name);
    }
    expect(found[0]).toBe('odd_tools__water_plants');
    expect(text(await call(client, 'odd_tools__water_plants'))).toContain('called as "water.plants"');
  });

  it('calls a configured core tool by its own name', async () => {
    const graph = (await client.callTool({ name: 'memory__read_graph', arguments: {} })) as CallToolResult;
    expect(graph.isError, text(graph)).toBeFalsy();
    expect(text(graph)).toContain('entities');
  });
});

describe('loopctl mcp --expose-found', () => {
  it('adds found tools to tools/list, says so with list_changed, and serves them by name', async () => {
    // The default selector: its warm-up search must not add anything to the list.
    const { client } = await connect('--expose-found');
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    const changed = new Promise<void>((done) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => done()),
    );
    const found = await search(client, 'list the files in a directory', 3);
    await changed;
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    expect(listed.slice(0, 3)).toEqual(['search_tools', 'call_tool', 'memory__read_graph']);
    expect(listed.slice(3)).toEqual(found.tools.map((tool) => tool.name));
    const direct = (await client.callTool({
      name: 'filesystem__list_directory',
      arguments: { path: files },
    })) as CallToolResult;
    expect(listed).toContain('filesystem__list_directory');
    expect(text(direct)).toContain('notes.txt');
  });
});

describe('loopctl mcp: protocol version', () => {
  /** One raw initialize over stdio: the version the gateway answers with. */
  async function negotiated(version: string): Promise<string> {
    // No upstreams: the answer is the gateway's own.
    const child = spawn(process.execPath, [BIN, 'mcp', '--selector', 'bm25'], {
      env: { ...process.env, LOOPCTL_MCP_SERVERS: '[]' },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    try {
      const line = new Promise<string>((resolve, reject) => {
        let buffer = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => {
          buffer += chunk;
          const end = buffer.indexOf('\n');
          if (end >= 0) resolve(buffer.slice(0, end));
        });
        child.once('exit', (code) => reject(new Error(`the gateway exited with ${code}`)));
      });
      const params = { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params })}\n`);
      const answer = JSON.parse(await line) as { result: { protocolVersion: string } };
      return answer.result.protocolVersion;
    } finally {
      child.stdin.end();
      await new Promise((done) => child.once('exit', done));
    }
  }

  it('answers a version it supports with that version, and a newer one with its latest', async () => {
    expect(await negotiated('2025-06-18')).toBe('2025-06-18');
    expect(await negotiated('2024-11-05')).toBe('2024-11-05');
    expect(await negotiated('2025-11-25')).toBe('2025-11-25');
    expect(await negotiated('2099-01-01')).toBe('2025-11-25');
  });
});
