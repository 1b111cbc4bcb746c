#!/usr/bin/env node
// The MCP gateway measured as an agent meets it: the real MCP SDK client spawns
// `node bin/loopctl.mjs mcp` over stdio, and the gateway mounts the published servers from npm
// (server-filesystem on a temp folder, -memory, -everything) and a generated server exposing a
// public set's tools (scripts/bench-gateway-server.mjs). It reports:
//
// - the gateway's tools/list size in tokens (o200k) beside the upstreams' own lists, summed;
// - search recall@5 on the set's test prompts (one search_tools call with the prompt; a case
//   counts when all its expected tools are among the 5), for the gateway with the hybrid and
//   with BM25, beside the AI SDK's default keyword search over the same (gateway-named) tools;
// - the first search's latency after the gateway started (it waits for the mounts and the
//   model) and the warm searches' p50/p95, measured at the client (stdio round trip included).
//
// - with --vectors, the hybrid runs with a vectors file `loopctl mcp --build-vectors` wrote for
//   the same config first (its build time is reported), as a user ships one;
// - the moment the gateway logged its search index ready (model, vectors, corpus, links).
//
// --tools FILE replaces the generated server's list (e.g. 10,000 tools from
// scripts/bench-gateway-tools.mjs); the set's test prompts still score it. --wait-ready issues
// the first search only once the gateway says its index is ready (a search after start-up);
// without it the first search goes out at once, and waits for the mounts and the model.
//
//   npm run build && node scripts/bench-gateway.mjs [--set bfcl] [--cases N] [--selectors hybrid,bm25] [--vectors] [--tools FILE] [--wait-ready] [--profile DIR] [--json out.json]
//
// Test split only (the project's sha256 split, as npm run eval uses): never tune on it. Run it
// under the shared lock: flock /tmp/loopctl-heavy.lock node scripts/bench-gateway.mjs
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    set: { type: 'string', default: 'bfcl' },
    data: { type: 'string', default: resolve(root, '../shared/eval') },
    cases: { type: 'string' },
    selectors: { type: 'string', default: 'hybrid,bm25' },
    tools: { type: 'string' },
    vectors: { type: 'boolean', default: false },
    'wait-ready': { type: 'boolean', default: false },
    profile: { type: 'string' },
    json: { type: 'string' },
  },
});

const { assignNames } = await import(join(root, 'dist/mcp.js'));
const { aiSdkKeywordSearch, loadCases, loadTools } = await import(join(root, 'dist/cli.js'));
const require = createRequire(import.meta.url);
const node = process.execPath;
const bin = (name) => {
  const manifest = require.resolve(`@modelcontextprotocol/server-${name}/package.json`);
  const { bin: bins } = require(manifest);
  return join(dirname(manifest), Object.values(bins)[0]);
};

const setDir = join(values.data, values.set);
const toolsFile = values.tools ? resolve(values.tools) : join(setDir, 'tools.json');
const setTools = loadTools(toolsFile);
let cases = loadCases(join(setDir, 'cases.jsonl'), 'test');
if (values.cases) cases = cases.slice(0, Number(values.cases));
const work = mkdtempSync(join(tmpdir(), 'loopctl-bench-gateway-'));
const setKey = values.set.replace(/[^a-zA-Z0-9_-]/g, '_');
const servers = {
  filesystem: { command: node, args: [bin('filesystem'), work] },
  memory: { command: node, args: [bin('memory')], env: { MEMORY_FILE_PATH: join(work, 'memory.jsonl') } },
  everything: { command: node, args: [bin('everything'), 'stdio'] },
  [setKey]: { command: node, args: [join(root, 'scripts/bench-gateway-server.mjs'), toolsFile] },
};
const config = join(work, 'mcp.json');
writeFileSync(config, JSON.stringify({ mcpServers: servers }));

/** A connected SDK client for a stdio command; `onLog` hears its stderr, line by line. */
async function connect(command, args, env, onLog) {
  const client = new Client({ name: 'bench-gateway', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...process.env, ...env },
    stderr: onLog ? 'pipe' : 'ignore',
  });
  if (onLog) {
    let buffer = '';
    transport.stderr?.setEncoding('utf8').on('data', (chunk) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        onLog(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
      }
    });
  }
  await client.connect(transport);
  return client;
}

/** `loopctl mcp --build-vectors` for the bench's config: the file a user would ship. */
async function buildVectors() {
  const { execFileSync } = await import('node:child_process');
  const file = join(work, 'gateway.lcv');
  const t0 = performance.now();
  const line = execFileSync(node, [join(root, 'bin/loopctl.mjs'), 'mcp', '--config', config, '--build-vectors', file], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return { file, ms: Math.round(performance.now() - t0), line: line.trim() };
}

const tokensOf = (tools) => countTokens(JSON.stringify(tools));

/** Every upstream's own tools/list, as an agent mounting them directly would load them. */
async function upstreamLists() {
  const sizes = {};
  for (const [name, server] of Object.entries(servers)) {
    const client = await connect(server.command, server.args, server.env);
    const { tools } = await client.listTools();
    sizes[name] = { tools: tools.length, tokens: tokensOf(tools) };
    await client.close();
  }
  return sizes;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
/** The set's expected names as the gateway names them (`math.factorial` → `bfcl__math_factorial`). */
const gatewayName = assignNames(
  setTools.map((tool) => tool.name),
  setKey,
);

/** One gateway run: its list, the first search, then one search per test case. */
async function gatewayRun(selector, vectorsFile) {
  const started = performance.now();
  let readyMs;
  let readyLine;
  let onReady;
  const ready = new Promise((done) => {
    onReady = done;
  });
  // --profile DIR: the gateway's own CPU profile (node --cpu-prof), written when it exits.
  const profile = values.profile ? ['--cpu-prof', '--cpu-prof-dir', resolve(values.profile)] : [];
  const args = [...profile, join(root, 'bin/loopctl.mjs'), 'mcp', '--config', config, '--selector', selector];
  if (vectorsFile && selector === 'hybrid') args.push('--vectors', vectorsFile);
  let stateLine;
  const client = await connect(node, args, {}, (line) => {
    // Whether the vectors file's derived state (tool links, lexical index) served the list.
    if (/tool links and lexical index/.test(line)) stateLine = line;
    if (readyMs === undefined && /search index ready/.test(line)) {
      readyMs = performance.now() - started;
      readyLine = line;
      onReady();
    }
  });
  const connectedMs = performance.now() - started;
  const { tools } = await client.listTools();
  const search = async (query) => {
    const result = await client.callTool({ name: 'search_tools', arguments: { query, limit: 5 } });
    return JSON.parse(result.content[0].text);
  };
  if (values['wait-ready']) await ready;
  const first = performance.now();
  const firstAnswer = await search(cases[0].query);
  const firstMs = performance.now() - first;
  const firstFromSpawnMs = performance.now() - started;
  const times = [];
  let full = 0;
  let recall = 0;
  for (const testCase of cases) {
    const t0 = performance.now();
    const found = await search(testCase.query);
    times.push(performance.now() - t0);
    const names = new Set(found.tools.map((tool) => tool.name));
    const hit = testCase.expected.filter((name) => names.has(gatewayName.get(name))).length;
    full += hit === testCase.expected.length ? 1 : 0;
    recall += hit / testCase.expected.length;
  }
  await client.close();
  times.sort((a, b) => a - b);
  return {
    selector,
    rankedBy: firstAnswer.rankedBy,
    unavailable: firstAnswer.unavailable,
    listTokens: tokensOf(tools),
    listTools: tools.length,
    connectedMs: Math.round(connectedMs),
    firstSearchMs: Math.round(firstMs),
    firstAnswerFromSpawnMs: Math.round(firstFromSpawnMs),
    readyMs: readyMs === undefined ? undefined : Math.round(readyMs),
    readyLine,
    ...(stateLine ? { stateLine } : {}),
    waitedForReady: values['wait-ready'],
    p50Ms: Number(percentile(times, 50).toFixed(1)),
    p95Ms: Number(percentile(times, 95).toFixed(1)),
    fullRecallAt5: Number((full / cases.length).toFixed(3)),
    recallAt5: Number((recall / cases.length).toFixed(3)),
  };
}

/** The AI SDK's default keyword search over the same tools, named as the gateway names them. */
function aiSdkBaseline() {
  const named = setTools.map((tool) => ({ ...tool, name: gatewayName.get(tool.name) }));
  let full = 0;
  for (const testCase of cases) {
    const names = new Set(aiSdkKeywordSearch(testCase.query, named, 5));
    full += testCase.expected.every((name) => names.has(gatewayName.get(name))) ? 1 : 0;
  }
  return Number((full / cases.length).toFixed(3));
}

try {
  const upstreams = await upstreamLists();
  const upstreamTokens = Object.values(upstreams).reduce((sum, u) => sum + u.tokens, 0);
  const vectors = values.vectors ? await buildVectors() : undefined;
  const runs = [];
  for (const selector of values.selectors.split(',')) runs.push(await gatewayRun(selector, vectors?.file));
  const report = {
    set: values.set,
    cases: cases.length,
    upstreams,
    upstreamTokens,
    tools: setTools.length,
    vectors: vectors ? { buildMs: vectors.ms, line: vectors.line } : undefined,
    runs,
    aiSdkKeyword: aiSdkBaseline(),
  };
  console.log(
    `set ${values.set}, ${cases.length} test cases, generated server ${setTools.length} tools; node ${process.version}`,
  );
  if (vectors) console.log(`vectors: ${vectors.line} (command ${vectors.ms} ms)`);
  console.log(
    `tools/list tokens (o200k): upstreams ${upstreamTokens.toLocaleString('en')} (${Object.entries(upstreams)
      .map(([n, u]) => `${n} ${u.tools} tools, ${u.tokens.toLocaleString('en')}`)
      .join('; ')})`,
  );
  for (const run of runs)
    console.log(
      `gateway --selector ${run.selector} (ranked by ${run.rankedBy}): tools/list ${run.listTools} tools, ${run.listTokens} tokens; ` +
        `full recall@5 ${run.fullRecallAt5} (mean recall@5 ${run.recallAt5}); connected ${run.connectedMs} ms, ` +
        `index ready ${run.readyMs ?? '?'} ms after spawn, first search ${run.firstSearchMs} ms${run.waitedForReady ? ' (issued once ready)' : ' (issued at once)'} ` +
        `(answered ${run.firstAnswerFromSpawnMs} ms after spawn), warm p50 ${run.p50Ms} ms, p95 ${run.p95Ms} ms` +
        (run.unavailable.length > 0 ? `; unavailable: ${JSON.stringify(run.unavailable)}` : ''),
    );
  console.log(`AI SDK keyword search, same tools: full recall@5 ${report.aiSdkKeyword}`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
