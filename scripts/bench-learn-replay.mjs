// `npm run bench:learn-replay`: what the proxy learns from traffic, measured by replay
// (docs/proxy.md, "Learning from traffic"). For each labelled registry (tools.json +
// cases.jsonl), its cases split in two halves by a fixed rule (the first hex digit of the
// SHA-256 of the case id: even → A, odd → B). On a Node server with PROXY_LEARN=on (the file
// store, hybrid at k = 8, `narrow`, USE-lite), half B's prompts are sent once each and scored on
// what the proxy forwarded: the baseline. Then half A is sent as two-request conversations (the
// prompt; then the prompt, the expected tools as the model's calls, their results), and half B
// again once the learned copy is built. Reported: full recall@8 on B before and after, the gain,
// the mean forwarded count, and the proxy's own time per B request (server-timing, p50 / p95)
// with learning on vs a server with learning off.
//
//   npm run build && node scripts/bench-learn-replay.mjs [--sets workdesk,mixdesk] [--data DIR] [--max-cases N] [--json out.json]
//
// Run it under the shared lock: flock /tmp/loopctl-heavy.lock node scripts/bench-learn-replay.mjs
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: 'workdesk,mixdesk' },
    data: { type: 'string', default: join(root, 'test', 'fixtures') },
    model: { type: 'string', default: join(root, 'models', 'use-lite') },
    k: { type: 'string', default: '8' },
    // A large set keeps N cases sampled by a fixed digest (the same N on every run).
    'max-cases': { type: 'string' },
    json: { type: 'string' },
  },
});
const K = Number(values.k);

const { ToolRegistry } = await import(pathToFileURL(join(root, 'dist', 'index.js')).href);
const { startNodeServer, useLiteFromDisk } = await import(pathToFileURL(join(root, 'dist', 'hono-node.js')).href);
const embedder = useLiteFromDisk(values.model);

/** A model server that answers every request with a short text and records the tools it got. */
async function recordingUpstream() {
  const seen = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const json = JSON.parse(body || '{}');
      seen.push((json.tools ?? []).map((tool) => tool.function?.name ?? tool.name));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'r',
          object: 'chat.completion',
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        }),
      );
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, seen, close: () => server.close() };
}

const half = (id) => (Number.parseInt(createHash('sha256').update(id).digest('hex')[0], 16) % 2 === 0 ? 'A' : 'B');

function openAITools(tools) {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** Start a proxy over `upstream` (learning on or off); `send(messages)` → { forwarded, ms, learned }. */
async function proxy(upstream, tools, learn) {
  const folder = mkdtempSync(join(tmpdir(), 'loopctl-replay-'));
  const server = await startNodeServer({
    registry: new ToolRegistry(),
    embedder,
    port: 0,
    vars: {
      PROXY_AUTH: 'passthrough',
      PROXY_OPENAI_BASE_URL: upstream.url,
      PROXY_SELECTOR: 'hybrid',
      PROXY_POLICY: 'narrow',
      PROXY_K: String(K),
      PROXY_LEARN: learn ? 'on' : 'off',
      PROXY_LEARN_DIR: folder,
      // The replay sends a tenant's whole half at once; a real tenant's minute is 60 writes.
      PROXY_LEARN_WRITES_PER_MINUTE: '100000',
    },
  });
  const declared = openAITools(tools);
  const send = async (messages) => {
    const before = upstream.seen.length;
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-replay', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages, tools: declared }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`proxy answered ${response.status}`);
    const timing = /loopctl;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '');
    return {
      forwarded: upstream.seen[before] ?? [],
      ms: timing ? Number(timing[1]) : Number.NaN,
      learned: Number(response.headers.get('x-loopctl-learned') ?? 0),
      fellOpen: response.headers.has('x-loopctl-fell-open'),
      warming: /tool texts left to embed/.test(response.headers.get('x-loopctl-warning') ?? ''),
    };
  };
  return {
    send,
    close: async () => {
      await server.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

const ask = (query) => [{ role: 'user', content: query }];
const answered = (item) => [
  { role: 'user', content: item.query },
  {
    role: 'assistant',
    tool_calls: item.expected.map((name, i) => ({
      id: `c${i}`,
      type: 'function',
      function: { name, arguments: '{}' },
    })),
  },
  ...item.expected.map((_, i) => ({ role: 'tool', tool_call_id: `c${i}`, content: '{"ok": true}' })),
];

async function score(send, cases) {
  let full = 0;
  let forwarded = 0;
  const ms = [];
  let learned = 0;
  let fellOpen = 0;
  for (const item of cases) {
    const result = await send(ask(item.query));
    const got = new Set(result.forwarded);
    if (item.expected.every((name) => got.has(name))) full++;
    forwarded += result.forwarded.length;
    ms.push(result.ms);
    learned = Math.max(learned, result.learned);
    if (result.fellOpen) fellOpen++;
  }
  return { fullRecall: full / cases.length, meanForwarded: forwarded / cases.length, ms, learned, fellOpen };
}

// Warm the corpus: the proxy embeds at most LOOPCTL_MAX_NEW_EMBEDS (512) tool texts a request and
// ranks lexically meanwhile, so a large registry (bfcl's 1,857 tools) needs several requests before
// the first scored one; three were not enough for bfcl (its first half-B prompt ranked lexically).
async function warm(send, cases) {
  for (let attempt = 0; attempt < 64; attempt++) {
    const result = await send(ask(cases[attempt % cases.length].query));
    if (!result.warming && attempt >= 2) return;
  }
}

const quantile = (list, q) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

const rows = [];
for (const set of values.sets.split(',')) {
  const tools = JSON.parse(readFileSync(join(values.data, set, 'tools.json'), 'utf8'));
  const digest = (id) => createHash('sha256').update(id).digest('hex');
  const cases = readFileSync(join(values.data, set, 'cases.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))
    // The cap samples by a second digest: the first N in the split's own order would all fall in
    // half A (their digests share a first hex digit) on a large set.
    .sort((x, y) => (digest(`sample/${x.id}`) < digest(`sample/${y.id}`) ? -1 : 1))
    .slice(0, values['max-cases'] ? Number(values['max-cases']) : undefined)
    .sort((x, y) => (digest(x.id) < digest(y.id) ? -1 : 1));
  const a = cases.filter((item) => half(item.id) === 'A');
  const b = cases.filter((item) => half(item.id) === 'B');
  const upstream = await recordingUpstream();

  // Learning off: the unlearned ranking and its time (one warm-up pass embeds the corpus).
  const off = await proxy(upstream, tools, false);
  await warm(off.send, b);
  const plain = await score(off.send, b);
  await off.close();

  const on = await proxy(upstream, tools, true);
  await warm(on.send, b);
  const before = await score(on.send, b);
  for (const item of a) {
    await on.send(ask(item.query));
    await on.send(answered(item));
  }
  // The learned copy is built in the background: wait until a request ranks with every example.
  const target = new Set(a.map((item) => item.query)).size;
  let shaped = 0;
  for (let attempt = 0; attempt < 600 && shaped < target; attempt++) {
    shaped = (await on.send(ask(b[0].query))).learned;
    if (shaped < target) await new Promise((done) => setTimeout(done, 100));
  }
  const after = await score(on.send, b);
  await on.close();
  upstream.close();

  const row = {
    set,
    tools: tools.length,
    halfA: a.length,
    halfB: b.length,
    learned: after.learned,
    offFullRecall: plain.fullRecall,
    beforeFullRecall: before.fullRecall,
    afterFullRecall: after.fullRecall,
    gain: after.fullRecall - before.fullRecall,
    meanForwardedBefore: before.meanForwarded,
    meanForwardedAfter: after.meanForwarded,
    // Prompts the proxy could not rank (e.g. outside USE-lite's vocabulary): all tools forwarded.
    fellOpenAfter: after.fellOpen,
    offMsP50: quantile(plain.ms, 0.5),
    offMsP95: quantile(plain.ms, 0.95),
    onMsP50: quantile(after.ms, 0.5),
    onMsP95: quantile(after.ms, 0.95),
  };
  rows.push(row);
  console.error(JSON.stringify(row));
}

const f3 = (x) => x.toFixed(3);
const f2 = (x) => x.toFixed(2);
let md = `| Registry | Tools | Half A / B | Examples | Full recall@${K} B, off | B before traffic | B after A | Gain | Mean forwarded | Proxy ms p50 / p95, off | on (learned) |\n`;
md += '|---|---|---|---|---|---|---|---|---|---|---|\n';
for (const r of rows)
  md += `| ${r.set} | ${r.tools} | ${r.halfA} / ${r.halfB} | ${r.learned} | ${f3(r.offFullRecall)} | ${f3(r.beforeFullRecall)} | ${f3(r.afterFullRecall)} | ${r.gain >= 0 ? '+' : ''}${f3(r.gain)} | ${f2(r.meanForwardedAfter)}${r.fellOpenAfter ? ` (${r.fellOpenAfter} fell open)` : ''} | ${f2(r.offMsP50)} / ${f2(r.offMsP95)} | ${f2(r.onMsP50)} / ${f2(r.onMsP95)} |\n`;
console.log(md);
if (values.json) writeFileSync(values.json, JSON.stringify(rows, null, 2));
