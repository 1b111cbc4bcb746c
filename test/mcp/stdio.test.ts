/**
 * stdio MCP servers: real published servers from npm, started as child processes with
 * `process.execPath` and the package's bin file (no npx, no network):
 * `@modelcontextprotocol/server-filesystem`, `server-memory`, and `server-everything` in
 * stdio mode (its long-running tool is the call a crash interrupts).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type McpMount,
  type McpStdioMountOptions,
  mountAll,
  mountMcp,
  parseMcpServers,
} from '../../src/adapters/mcp/index.js';
import { BareLoop } from '../../src/loop/bare-loop.js';
import type { ToolCall } from '../../src/message.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { collect, ofType, onTurn, openAI, useScriptedServer, wireMessages } from '../loop/helpers.js';
import { serverBin } from './npm-servers.js';

const model = useScriptedServer();
const REPORT_PID = fileURLToPath(new URL('./fixtures/report-pid.mjs', import.meta.url));

let base: string;
let root: string;
let outside: string;
const mounts: McpMount[] = [];

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'loopctl-stdio-'));
  root = join(base, 'root');
  outside = join(base, 'outside');
  await mkdir(join(root, 'docs'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, 'notes.txt'), 'Ship the stdio adapter.\n');
  await writeFile(join(root, 'docs', 'setup.md'), '# Setup\nnpm ci\n');
  await writeFile(join(outside, 'secret.txt'), 'the secret');
});
afterEach(async () => {
  await Promise.all(mounts.splice(0).map((mount) => mount.unmount()));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const call = (name: string, args: Record<string, unknown>, id = 'c1'): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
});

/** Mount a stdio server whose pid is reported on stderr; unmounted after the test. */
async function mountWithPid(
  registry: ToolRegistry,
  options: McpStdioMountOptions,
): Promise<{ mount: McpMount; pids: number[]; stderr: () => string }> {
  const pids: number[] = [];
  let stderr = '';
  const mount = await mountMcp(registry, {
    onError: (error) => expect.fail(error.message),
    ...options,
    args: ['--import', REPORT_PID, ...(options.args ?? [])],
    onStderr: (text) => {
      stderr += text;
      for (const match of text.matchAll(/report-pid=(\d+)/g)) pids.push(Number(match[1]));
    },
  });
  mounts.push(mount);
  expect(pids.length, stderr).toBeGreaterThan(0);
  return { mount, pids, stderr: () => stderr };
}

const filesystem = (...dirs: string[]): McpStdioMountOptions => ({
  command: process.execPath,
  args: [serverBin('filesystem'), ...dirs],
  prefix: 'fs',
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('server-filesystem over stdio', () => {
  it('its tools join the registry; it lists and reads files in its directory', async () => {
    const registry = new ToolRegistry();
    const { mount } = await mountWithPid(registry, filesystem(root));
    expect(mount.tools).toEqual(expect.arrayContaining(['fs__list_directory', 'fs__read_text_file', 'fs__write_file']));
    expect(registry.get('fs__read_text_file')?.parameters).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    });

    const listing = await registry.dispatch(call('fs__list_directory', { path: root }));
    expect(listing.isError).toBe(false);
    expect(listing.content.split('\n').sort()).toEqual(['[DIR] docs', '[FILE] notes.txt']);
    expect(await registry.dispatch(call('fs__read_text_file', { path: join(root, 'notes.txt') }))).toMatchObject({
      isError: false,
      content: 'Ship the stdio adapter.\n',
    });
  });

  it('a path outside its allowed directory is refused by the server and arrives as a tool error', async () => {
    const registry = new ToolRegistry();
    await mountWithPid(registry, filesystem(root));
    const result = await registry.dispatch(call('fs__read_text_file', { path: join(outside, 'secret.txt') }));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^tool "fs__read_text_file" failed: .*Access denied - path outside allowed directories/,
    );
    expect(result.content).not.toContain('the secret');
    // The server is fine: the next call works.
    expect(
      (await registry.dispatch(call('fs__read_text_file', { path: join(root, 'docs', 'setup.md') }))).content,
    ).toBe('# Setup\nnpm ci\n');
  });

  it('unmount ends even a server that ignores its stdin closing and SIGTERM (SIGKILL after 2 s more)', async () => {
    const registry = new ToolRegistry();
    const chatty = fileURLToPath(new URL('./fixtures/chatty-stdio-server.mjs', import.meta.url));
    const { mount, pids, stderr } = await mountWithPid(registry, {
      command: process.execPath,
      args: [chatty],
      env: { STUBBORN: '1' },
      prefix: 'stubborn',
    });
    expect(isRunning(pids[0] as number)).toBe(true);
    await mount.unmount();
    expect(isRunning(pids[0] as number)).toBe(false);
    expect(stderr()).toContain('ignoring SIGTERM'); // so it was SIGKILL that ended it
  });

  it('unmount takes its tools off the registry and ends the process', async () => {
    const registry = new ToolRegistry();
    const { mount, pids } = await mountWithPid(registry, filesystem(root));
    const pid = pids[0] as number;
    expect(isRunning(pid)).toBe(true);
    await mount.unmount();
    expect(registry.size).toBe(0);
    expect(isRunning(pid)).toBe(false);
    expect(await registry.dispatch(call('fs__list_directory', { path: root }))).toMatchObject({
      isError: true,
      content: 'unknown tool "fs__list_directory"',
    });
  });
});

// A tools/list of thousands of tools is one JSON line of about a megabyte, which a pipe hands
// over in many chunks: every chunk must join the line, and each tool arrive once, in order.
describe('a stdio server with thousands of tools', () => {
  it('its one-line tools/list, read in many chunks, mounts every tool', async () => {
    const tools = Array.from({ length: 3000 }, (_, i) => ({
      name: `tool_${i}`,
      description: `Tool number ${i}: ${'does a generated thing with its arguments. '.repeat(6)}`,
      parameters: { type: 'object', properties: { value: { type: 'string', description: `value ${i}` } } },
    }));
    const file = join(base, 'many-tools.json');
    await writeFile(file, JSON.stringify(tools));
    expect(JSON.stringify(tools).length).toBeGreaterThan(16 * 65_536);
    const registry = new ToolRegistry();
    const mount = await mountMcp(registry, {
      command: process.execPath,
      args: [fileURLToPath(new URL('../../scripts/bench-gateway-server.mjs', import.meta.url)), file],
      prefix: 'many',
      onError: (error) => expect.fail(error.message),
    });
    mounts.push(mount);
    expect(mount.tools).toEqual(tools.map((tool) => `many__${tool.name}`));
    expect(registry.get('many__tool_2999')?.description).toBe(tools[2999]?.description);
  });
});

describe('server-memory over stdio, in a run', () => {
  it('the model creates entities, then reads the graph back; each result rides the next request', async () => {
    const memoryFile = join(base, 'memory.jsonl');
    const registry = new ToolRegistry();
    mounts.push(
      await mountMcp(registry, {
        command: process.execPath,
        args: [serverBin('memory')],
        env: { MEMORY_FILE_PATH: memoryFile },
        prefix: 'memory',
        onError: (error) => expect.fail(error.message),
      }),
    );
    const entity = { name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the first published program'] };
    model.current.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'memory__create_entities', arguments: { entities: [entity] } }] },
      { toolCalls: [{ id: 'call_2', name: 'memory__read_graph', arguments: {} }] },
      { text: 'I remember Ada Lovelace.' },
    );
    const events = await collect(
      new BareLoop({ client: openAI(model.current), registry }).run(
        'Remember that Ada Lovelace wrote the first published program.',
      ),
    );

    expect(onTurn(events, 'tool_result', 1).result).toMatchObject({
      isError: false,
      content: expect.stringContaining('Ada Lovelace'),
    });
    const graph = onTurn(events, 'tool_result', 2).result;
    expect(graph.isError).toBe(false);
    expect(JSON.parse(graph.content)).toMatchObject({ entities: [entity], relations: [] });
    expect(
      wireMessages(model.current.requests[2])
        .filter((message) => message.role === 'tool')
        .map((message) => message.tool_call_id),
    ).toEqual(['call_1', 'call_2']);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
    // The server really stored it where it was told to.
    expect(await readFile(memoryFile, 'utf8')).toContain('"Ada Lovelace"');
  });
});

describe('a stdio server that crashes', () => {
  it('fails the call in flight at once with how the process ended; the next call starts it again', async () => {
    const registry = new ToolRegistry();
    const { pids } = await mountWithPid(registry, {
      command: process.execPath,
      args: [serverBin('everything'), 'stdio'],
      prefix: 'everything',
    });
    const pending = registry.dispatch(call('everything__trigger-long-running-operation', { duration: 30, steps: 1 }));
    await new Promise((resolve) => setTimeout(resolve, 300)); // the call is on the wire
    const killedAt = performance.now();
    process.kill(pids[0] as number, 'SIGKILL');
    const result = await pending;
    const elapsed = performance.now() - killedAt;

    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^tool "everything__trigger-long-running-operation" failed: MCP server everything unreachable: connection lost during tools\/call "trigger-long-running-operation" \(the server process was killed by SIGKILL; stderr: .*report-pid=\d+/s,
    );
    // Ended by the exit, not by the 60 s per-call timeout.
    expect(elapsed).toBeLessThan(10_000);

    const echo = await registry.dispatch(call('everything__echo', { message: 'back again' }));
    expect(echo).toMatchObject({ isError: false, content: 'Echo: back again' });
    expect(pids).toHaveLength(2);
    expect(pids[1]).not.toBe(pids[0]);
  });
});

describe('bad input: the mount rejects with a clear error and the stderr tail', () => {
  it('a command that is not found', async () => {
    const registry = new ToolRegistry();
    await expect(mountMcp(registry, { command: join(base, 'no-such-server'), prefix: 'missing' })).rejects.toThrow(
      `MCP server missing unreachable: cannot start ${JSON.stringify(join(base, 'no-such-server'))}: command not found`,
    );
    expect(registry.size).toBe(0);
  });

  it('a server that exits at start', async () => {
    const registry = new ToolRegistry();
    const error = await mountMcp(registry, filesystem(join(base, 'no-such-dir'))).then(
      () => new Error('mounted'),
      (failure: unknown) => failure as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(
      /^MCP server fs unreachable: the server process exited with code 1 before answering; stderr: .*Error: None of the specified directories are accessible$/s,
    );
    expect(registry.size).toBe(0);
    expect(registry.generation).toBe(0);
  });

  it('a server that writes garbage to stdout: rejected at once, its process ended', async () => {
    const registry = new ToolRegistry();
    const script =
      "process.stderr.write('booting the widget server\\n'); console.log('Widget server v2 ready!'); setInterval(() => {}, 1000);";
    const started = performance.now();
    const error = await mountMcp(registry, { command: process.execPath, args: ['-e', script], prefix: 'widgets' }).then(
      () => new Error('mounted'),
      (failure: unknown) => failure as Error,
    );
    expect(error.message).toBe(
      'MCP server widgets unreachable: the server wrote to stdout what is not JSON-RPC: "Widget server v2 ready!"; stderr: booting the widget server',
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(registry.size).toBe(0);
  });

  it('a stray stdout line after the handshake is dropped and reported; the call still answers', async () => {
    const registry = new ToolRegistry();
    const errors: string[] = [];
    const chatty = fileURLToPath(new URL('./fixtures/chatty-stdio-server.mjs', import.meta.url));
    mounts.push(
      await mountMcp(registry, {
        command: process.execPath,
        args: [chatty],
        prefix: 'chatty',
        onError: (error) => errors.push(error.message),
      }),
    );
    expect(await registry.dispatch(call('chatty__shout', { text: 'hello' }))).toMatchObject({
      isError: false,
      content: 'HELLO',
    });
    expect(errors).toEqual(['MCP server chatty: the server wrote to stdout what is not JSON-RPC: "DEBUG: shouting"']);
  });

  it('options that cannot work are refused before anything starts', async () => {
    const registry = new ToolRegistry();
    await expect(mountMcp(registry, { command: '' })).rejects.toThrow(/command must be a non-empty string/);
    await expect(mountMcp(registry, { command: 'node', args: [1 as unknown as string] })).rejects.toThrow(
      /args must be an array of strings/,
    );
    await expect(mountMcp(registry, { command: 'node', env: { A: 1 as unknown as string } })).rejects.toThrow(
      /env must be an object of names to string values/,
    );
    await expect(
      mountMcp(registry, { command: 'node', url: 'http://127.0.0.1:1/mcp' } as unknown as McpStdioMountOptions),
    ).rejects.toThrow(/a url .* or a command .*, not both/);
    await expect(mountMcp(registry, {} as McpStdioMountOptions)).rejects.toThrow(
      /need a url \(Streamable HTTP\) or a command \(stdio\)/,
    );
  });
});

describe('configuration', () => {
  it('LOOPCTL_MCP_SERVERS accepts stdio entries, and mountAll starts them', async () => {
    const value = JSON.stringify([
      {
        command: process.execPath,
        args: [serverBin('memory')],
        env: { MEMORY_FILE_PATH: join(base, 'config-memory.jsonl') },
        prefix: 'memory',
      },
      {
        command: process.execPath,
        args: [serverBin('filesystem'), root],
        prefix: 'fs',
        name: 'files',
        timeoutMs: 10_000,
      },
    ]);
    const servers = parseMcpServers(value);
    expect(servers[1]).toEqual({
      command: process.execPath,
      args: [serverBin('filesystem'), root],
      prefix: 'fs',
      name: 'files',
      timeoutMs: 10_000,
    });
    const registry = new ToolRegistry();
    const stderr: string[] = [];
    const mounted = await mountAll(registry, servers, {
      onStderr: (text, server) => stderr.push(`${server.prefix}: ${text}`),
    });
    mounts.push(...mounted);
    expect(mounted.map((mount) => mount.name)).toEqual(['memory', 'files']);
    expect(registry.has('memory__read_graph') && registry.has('fs__read_text_file')).toBe(true);
    expect((await registry.dispatch(call('fs__read_text_file', { path: join(root, 'notes.txt') }))).content).toBe(
      'Ship the stdio adapter.\n',
    );
    expect(
      stderr.some((line) => line.startsWith('fs: ') && line.includes('Secure MCP Filesystem Server running on stdio')),
    ).toBe(true);
  });
});
