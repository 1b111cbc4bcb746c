/**
 * stdio MCP servers mounted from Deno (through its Node compatibility): the published
 * server-memory and server-filesystem, run with Node (`npm_node_execpath`, which npm sets
 * for `npm run test:deno`, else `node` on PATH) and their bin files. Run from the repo root:
 *
 *   npx deno test --config test/deno/deno.json --allow-run --allow-read --allow-write --allow-env --cached-only --no-check test/deno/mcp-stdio.test.ts
 */
import { mountMcp } from '../../src/adapters/mcp/index.js';
import { ToolRegistry } from '../../src/registry/registry.js';

const NODE = Deno.env.get('npm_node_execpath') ?? 'node';
const REPORT_PID = new URL('../mcp/fixtures/report-pid.mjs', import.meta.url).pathname;

async function serverBin(name: 'everything' | 'filesystem' | 'memory'): Promise<string> {
  const folder = new URL(`../../node_modules/@modelcontextprotocol/server-${name}/`, import.meta.url);
  const { bin } = JSON.parse(await Deno.readTextFile(new URL('package.json', folder))) as {
    bin: Record<string, string>;
  };
  return new URL(Object.values(bin)[0] as string, folder).pathname;
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

const call = (name: string, args: Record<string, unknown>) => ({ id: 'c1', name, arguments: JSON.stringify(args) });

Deno.test('server-memory over stdio from Deno: create entities, read the graph back, unmount', async () => {
  const dir = await Deno.makeTempDir({ prefix: 'loopctl-deno-mcp-' });
  const registry = new ToolRegistry();
  const mount = await mountMcp(registry, {
    command: NODE,
    args: [await serverBin('memory')],
    env: { MEMORY_FILE_PATH: `${dir}/memory.jsonl` },
    prefix: 'memory',
  });
  try {
    assert(
      mount.tools.includes('memory__create_entities') && mount.tools.includes('memory__read_graph'),
      `tools: ${mount.tools.join(', ')}`,
    );
    const created = await registry.dispatch(
      call('memory__create_entities', {
        entities: [{ name: 'Grace Hopper', entityType: 'person', observations: ['wrote the first compiler'] }],
      }),
    );
    assert(!created.isError, created.content);
    const graph = await registry.dispatch(call('memory__read_graph', {}));
    assert(!graph.isError, graph.content);
    const parsed = JSON.parse(graph.content) as { entities: { name: string; observations: string[] }[] };
    assert(parsed.entities.length === 1 && parsed.entities[0]?.name === 'Grace Hopper', graph.content);
  } finally {
    await mount.unmount();
    await Deno.remove(dir, { recursive: true });
  }
  assert(registry.size === 0, 'unmount removes the tools');
});

Deno.test('server-filesystem over stdio from Deno: reads inside its directory, refuses outside it', async () => {
  const base = await Deno.makeTempDir({ prefix: 'loopctl-deno-fs-' });
  await Deno.mkdir(`${base}/root`);
  await Deno.writeTextFile(`${base}/root/notes.txt`, 'from Deno');
  await Deno.writeTextFile(`${base}/secret.txt`, 'the secret');
  const registry = new ToolRegistry();
  const mount = await mountMcp(registry, {
    command: NODE,
    args: [await serverBin('filesystem'), `${base}/root`],
    prefix: 'fs',
  });
  try {
    const read = await registry.dispatch(call('fs__read_text_file', { path: `${base}/root/notes.txt` }));
    assert(!read.isError && read.content === 'from Deno', read.content);
    const refused = await registry.dispatch(call('fs__read_text_file', { path: `${base}/secret.txt` }));
    assert(
      refused.isError && /Access denied - path outside allowed directories/.test(refused.content),
      refused.content,
    );
    assert(!refused.content.includes('the secret'), 'the secret leaked');
  } finally {
    await mount.unmount();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test('a stdio server killed mid-call fails the call at once; a missing command rejects clearly', async () => {
  const registry = new ToolRegistry();
  const pids: number[] = [];
  const mount = await mountMcp(registry, {
    command: NODE,
    args: ['--import', REPORT_PID, await serverBin('everything'), 'stdio'],
    prefix: 'everything',
    onStderr: (text) => {
      for (const match of text.matchAll(/report-pid=(\d+)/g)) pids.push(Number(match[1]));
    },
  });
  try {
    assert(pids.length === 1, 'the server reported its pid');
    const pending = registry.dispatch(call('everything__trigger-long-running-operation', { duration: 30, steps: 1 }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const killedAt = performance.now();
    Deno.kill(pids[0] as number, 'SIGKILL');
    const result = await pending;
    const elapsed = performance.now() - killedAt;
    assert(
      result.isError &&
        /connection lost during tools\/call "trigger-long-running-operation" \(the server process was killed by SIGKILL/.test(
          result.content,
        ),
      result.content,
    );
    assert(elapsed < 10_000, `took ${elapsed} ms`);
  } finally {
    await mount.unmount();
  }
  const missing = await mountMcp(new ToolRegistry(), {
    command: '/nonexistent/loopctl-mcp-server',
    prefix: 'missing',
  }).then(
    () => undefined,
    (error: Error) => error.message,
  );
  assert(
    missing === 'MCP server missing unreachable: cannot start "/nonexistent/loopctl-mcp-server": command not found',
    String(missing),
  );
});
