// Two sections of docs/benchmarks.md that come from other scripts' runs, so `npm run eval`
// carries every figure in one report: the proxy's learning-from-traffic replay (run here,
// scripts/bench-learn-replay.mjs) and the MCP gateway's measurements (read from the JSON that
// scripts/bench-gateway.mjs writes with --json: a gateway run starts published servers and takes
// minutes, so it is passed in rather than re-run).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPLAY = resolve(import.meta.dirname, 'bench-learn-replay.mjs');

/**
 * Runs the replay on `sets` (folders under `data`), each set capped at `maxCases` cases when
 * given (the public sets are large; the cap keeps the first N in the script's digest order).
 */
export function runLearnReplay({ sets, data, maxCases }) {
  if (sets.length === 0) return [];
  const work = mkdtempSync(join(tmpdir(), 'loopctl-replay-'));
  try {
    const out = join(work, 'replay.json');
    const args = [REPLAY, '--sets', sets.join(','), '--data', data, '--json', out];
    if (maxCases) args.push('--max-cases', String(maxCases));
    execFileSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    return JSON.parse(readFileSync(out, 'utf8')).map((row) => ({ ...row, maxCases }));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const f3 = (x) => x.toFixed(3);
const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;

/** The replay section: one row per registry. */
export function learnReplaySection(rows) {
  let md = `## Learning from traffic: replay through the proxy\n\n`;
  md += `\`PROXY_LEARN=on\` (docs/proxy.md, "Learning from traffic"), measured by scripts/bench-learn-replay.mjs on a Node server `;
  md += `(the file store, hybrid at k = 8, USE-lite) in front of a recording loopback upstream. Each registry's cases are split in two `;
  md += `halves by a fixed rule (the first hex digit of the SHA-256 of the case id: even → A, odd → B). Half B's prompts are sent once `;
  md += `each and scored on the tools the proxy forwarded (*before*); half A is then sent as two-request conversations (the prompt; `;
  md += `then the prompt, the expected tools as the model's calls and their results), and half B again (*after*). *Off* is the same `;
  md += `half B through a server with learning off. Full recall@8 on half B; *proxy ms* is the proxy's own time per half-B request `;
  md += `(its \`server-timing\`), learning off vs on. The public sets use N cases sampled by a fixed digest (N in the row), `;
  md += `dev and test alike, since the replay needs labelled traffic; nothing was chosen on their test split.\n\n`;
  md += `| registry | tools | half A / B | examples | off | before | after | gain | mean forwarded (after) | proxy ms p50 / p95, off | on |\n`;
  md += `| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n`;
  for (const r of rows) {
    const name = r.maxCases ? `${r.set} (${r.maxCases} sampled)` : r.set;
    md += `| ${name} | ${r.tools} | ${r.halfA} / ${r.halfB} | ${r.learned} | ${f3(r.offFullRecall)} | ${f3(r.beforeFullRecall)} | `;
    md += `${f3(r.afterFullRecall)} | ${signed(r.gain)} | ${r.meanForwardedAfter.toFixed(2)} | ${r.offMsP50} / ${r.offMsP95} | ${r.onMsP50} / ${r.onMsP95} |\n`;
  }
  return `${md}\n`;
}

/** Reads bench-gateway.mjs --json reports. */
export const readGatewayReports = (files) => files.map((file) => ({ file, ...JSON.parse(readFileSync(file, 'utf8')) }));

const ms = (x) => (x === undefined || x === null ? '–' : `${Math.round(x).toLocaleString('en')} ms`);

/** The gateway section: one row per gateway run (selector) of each report. */
export function gatewaySection(reports) {
  let md = `## MCP gateway: \`npx loopctl mcp\`\n\n`;
  md += `From \`node scripts/bench-gateway.mjs --json FILE\` (docs/mcp.md, "Measured"): the gateway spawned as an agent spawns it, the MCP SDK's `;
  md += `client over stdio, with the published \`server-filesystem\`, \`-memory\` and \`-everything\` and a generated server exposing the `;
  md += `set's tools (\`--tools\`: a larger generated list, e.g. \`node scripts/bench-gateway-tools.mjs --count 10000\`). One search per test `;
  md += `prompt; *full recall@5*: all its expected tools among the 5 returned. *tools/list* is what the agent's model carries (o200k tokens) `;
  md += `beside the upstreams' own lists mounted directly. *Ready*: the gateway's index ready after spawn; *first search*: the first search `;
  md += `once ready; *warm*: every later search.\n\n`;
  md += `| set | prompts | tools | selector | vectors file | tools/list tokens (upstreams) | full recall@5 | AI SDK keyword@5 | ready | first search | warm p50 / p95 |\n`;
  md += `| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n`;
  for (const report of reports) {
    for (const run of report.runs) {
      md += `| ${report.set} | ${report.cases} | ${Object.values(report.upstreams)
        .reduce((sum, u) => sum + u.tools, 0)
        .toLocaleString('en')} | ${run.rankedBy ?? run.selector} | ${report.vectors ? 'yes' : 'no'} | `;
      md += `${run.listTokens} (${report.upstreamTokens.toLocaleString('en')}) | ${run.fullRecallAt5} | ${report.aiSdkKeyword} | `;
      md += `${ms(run.readyMs)} | ${ms(run.firstSearchMs)} | ${run.p50Ms} / ${run.p95Ms} ms |\n`;
    }
  }
  return `${md}\n`;
}
