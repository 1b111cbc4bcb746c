/**
 * `npm run bench:big-prompt`: issue 29's "one large prompt stalls every request", measured.
 * The Node entry with USE-lite and the default `hybrid` selector, 150 tools per request. Four
 * processes: the proxy (`big-prompt-proxy-child.ts`), two upstreams
 * (`big-prompt-upstream-child.ts`) and the client (this one), so the figure is the proxy's own
 * stall, not the upstream's read of the body it is forwarded nor the client's send. The small
 * requests speak Chat Completions to the recording upstream and the big one speaks Messages to
 * an upstream that only drains it: a shared stand-in upstream would hold the small requests
 * while it parses the big body, and one that parses it at all spends a core's worth of time the
 * proxy needs (a real upstream serves them on other machines).
 *
 * Small requests start on a fixed schedule (one every `intervalMs`, whether or not the last one
 * answered, so a stall shows in every request it holds up), first alone, then while a prompt as
 * large as the body limit allows is in flight, `bigRounds` times. A request counts as "during"
 * when it began after the big one was sent and before its answer arrived. The figure is how far
 * the small requests' latency moves (the target: under 50 ms).
 */

import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { anthropicTools, openAITools, wideToolSet } from '../support/wide-tool-set.js';

/** Latencies of one group of small requests, in milliseconds. */
export interface LatencySummary {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly max: number;
}

/** What {@link runBigPromptBench} measured, in milliseconds. */
export interface BigPromptFigures {
  readonly bigBytes: number;
  /** Each big request's answer time. */
  readonly bigMs: readonly number[];
  readonly alone: LatencySummary;
  readonly during: LatencySummary;
  /** Each small request's latency while the big prompt was in flight, in the order they began. */
  readonly duringMs: readonly number[];
  /** The proxy's own part of the small requests' latency: arrival to upstream call (its server-timing). */
  readonly aloneBeforeUpstream: LatencySummary;
  readonly duringBeforeUpstream: LatencySummary;
  /**
   * The proxy from the first big request on: its event loop's longest delay and p99, and the
   * CPU time its process spent (main thread, model worker, and the small requests' share), in ms.
   */
  readonly proxyStalls: {
    readonly maxMs: number;
    readonly p99Ms: number;
    readonly cpuMs: number;
    readonly userMs: number;
  };
}

/** Options for {@link runBigPromptBench}. */
export interface BigPromptBenchOptions {
  /** The USE-lite folder. */
  readonly modelDir: string;
  /** The built proxy and upstream child scripts. */
  readonly proxyChild: string;
  readonly upstreamChild: string;
  /** The proxy's body limit. Default 8 MiB (the Node entry's default). */
  readonly bodyLimit?: number;
  /** Small requests timed alone. Default 60. */
  readonly aloneCount?: number;
  /** Big requests, one after another. Default 3. */
  readonly bigRounds?: number;
  /** One small request starts every this many ms. Default 20. */
  readonly intervalMs?: number;
  /**
   * The big prompt's selector (`x-loopctl-selector`), e.g. `bm25` to measure the body's path
   * without its model calls. Default: the server's (`hybrid`), as the small requests use.
   */
  readonly bigSelector?: string;
  /** Extra `node` flags for the proxy child (e.g. `--cpu-prof --cpu-prof-dir=…`). */
  readonly proxyExecArgv?: readonly string[];
  /**
   * `prompt` (default): the big request is one long user message. `nested`: a body as large,
   * nested about a million arrays deep (the security review's hostile body), answered with a
   * 400 past the depth limit; the figure is then what refusing it costs everyone else.
   */
  readonly bigKind?: 'prompt' | 'nested';
}

const TOKEN = 'big-prompt-token-0123456789abcdef';
const SENTENCE = 'Please check the weather in Oslo and then email Ana the summary of the quarterly report. ';

/** Run the measurement. */
export async function runBigPromptBench(options: BigPromptBenchOptions): Promise<BigPromptFigures> {
  const { modelDir, bodyLimit = 8 * 1024 * 1024, aloneCount = 60, bigRounds = 3, intervalMs = 20 } = options;
  const children: ChildProcess[] = [];
  try {
    type Upstream = { openAIBaseURL: string; anthropicBaseURL: string };
    const [small, big] = await Promise.all([
      start<Upstream>(options.upstreamChild, ['recording'], [], children),
      start<Upstream>(options.upstreamChild, ['drain'], [], children),
    ]);
    const proxy = await start<{ url: string }>(
      options.proxyChild,
      [modelDir, small.openAIBaseURL, big.anthropicBaseURL, TOKEN],
      options.proxyExecArgv ?? [],
      children,
    );
    const proxyChild = children.at(-1) as ChildProcess;
    const chat = new URL(`${proxy.url}/v1/chat/completions`);
    const messages = new URL(`${proxy.url}/v1/messages`);
    const chatTools = openAITools(wideToolSet());
    const messagesTools = anthropicTools(wideToolSet());
    const smallBody = (content: string): Buffer =>
      Buffer.from(JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content }], tools: chatTools }));
    const bigBodyOf = (content: string): Buffer =>
      Buffer.from(
        JSON.stringify({
          model: 'scripted',
          max_tokens: 256,
          messages: [{ role: 'user', content }],
          tools: messagesTools,
        }),
      );
    // Resolves with the answer's server-timing: the proxy's time from arrival to the upstream call.
    const post = (body: Buffer, endpoint = chat, expected = 200): Promise<number> =>
      new Promise((done, fail) => {
        const sent = httpRequest(
          endpoint,
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${TOKEN}`,
              'content-type': 'application/json',
              'content-length': String(body.byteLength),
              'anthropic-version': '2023-06-01',
              ...(options.bigSelector && endpoint !== chat ? { 'x-loopctl-selector': options.bigSelector } : {}),
            },
          },
          (response) => {
            const timing = /dur=([\d.]+)/.exec(String(response.headers['server-timing'] ?? ''));
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              if (response.statusCode === expected) done(timing ? Number(timing[1]) : Number.NaN);
              else
                fail(new Error(`HTTP ${response.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`));
            });
            response.on('error', fail);
          },
        );
        sent.on('error', fail);
        sent.end(body);
      });
    const smallOf = (label: string): Buffer => smallBody(`weather in Oslo ${label}`);
    const timed = async (body: Buffer): Promise<{ began: number; ms: number; proxyMs: number }> => {
      const began = performance.now();
      const proxyMs = await post(body);
      return { began, ms: performance.now() - began, proxyMs };
    };
    // Small requests on a schedule until `until()` says stop; bodies built before each clock starts.
    type Run = { began: number; ms: number; proxyMs: number };
    const schedule = async (until: () => boolean, label: string): Promise<Run[]> => {
      const runs: Promise<Run>[] = [];
      for (let i = 0; !until(); i += 1) {
        const body = smallOf(`${label} ${i}`);
        runs.push(timed(body));
        await new Promise((done) => setTimeout(done, intervalMs));
      }
      return Promise.all(runs);
    };

    await post(smallOf('warm up')); // loads the model and embeds the corpus
    for (let i = 0; i < 10; i += 1) await post(smallOf(`warm up ${i}`));
    await post(bigBodyOf('weather in Oslo, warm up'), messages); // the Messages route and its upstream
    let aloneLeft = aloneCount;
    const aloneRuns = await schedule(() => aloneLeft-- <= 0, 'alone');
    const alone = aloneRuns.map((run) => run.ms);

    // The largest prompt the body limit admits, with the request's own JSON around it.
    const room = bodyLimit - bigBodyOf('').byteLength - 1024;
    const nested = options.bigKind === 'nested';
    const depth = Math.floor(room / 2);
    const bigBody = nested
      ? Buffer.from(
          `${bigBodyOf('weather in Oslo').toString('utf8').slice(0, -1)},"metadata":${'['.repeat(depth)}${']'.repeat(depth)}}`,
        )
      : bigBodyOf(SENTENCE.repeat(Math.floor(room / SENTENCE.length)));
    const bigStatus = nested ? 400 : 200;
    const during: number[] = [];
    const duringProxy: number[] = [];
    const bigMs: number[] = [];
    proxyChild.send('reset');
    for (let round = 0; round < bigRounds; round += 1) {
      await new Promise((done) => setTimeout(done, 200)); // the last round's small requests drain
      let answered = Number.POSITIVE_INFINITY;
      const sent = performance.now();
      const big = post(bigBody, messages, bigStatus).then(() => {
        answered = performance.now();
      });
      const runs = await schedule(() => answered !== Number.POSITIVE_INFINITY, `during ${round}`);
      await big;
      bigMs.push(answered - sent);
      for (const run of runs)
        if (run.began >= sent && run.began < answered) {
          during.push(run.ms);
          duringProxy.push(run.proxyMs);
        }
    }
    const proxyStalls = await new Promise<BigPromptFigures['proxyStalls']>((done) => {
      proxyChild.once('message', (message) => done(message as BigPromptFigures['proxyStalls']));
      proxyChild.send('stalls');
    });
    return {
      bigBytes: bigBody.byteLength,
      bigMs,
      alone: summary(alone),
      during: summary(during),
      duringMs: during,
      aloneBeforeUpstream: summary(aloneRuns.map((run) => run.proxyMs)),
      duringBeforeUpstream: summary(duringProxy),
      proxyStalls,
    };
  } finally {
    await Promise.all(children.map(stop));
  }
}

/** Fork `script`, wait for its first message (its addresses). */
function start<T>(
  script: string,
  args: readonly string[],
  execArgv: readonly string[],
  children: ChildProcess[],
): Promise<T> {
  const child = fork(script, [...args], { execArgv: [...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  return new Promise((done, fail) => {
    child.once('message', (message) => done(message as T));
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`${script} exited with ${code} before it listened`)));
  });
}

/** Disconnect a child and wait for it to exit (it writes its CPU profile on the way out). */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(killer);
      done();
    });
    if (child.connected) child.disconnect();
    else child.kill();
  });
}

function summary(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { n: sorted.length, p50: at(0.5), p90: at(0.9), max: sorted.at(-1) ?? 0 };
}
