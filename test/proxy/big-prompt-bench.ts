/**
 * `npm run bench:big-prompt`: issue 29's "one large prompt stalls every request", measured.
 * The Node entry with USE-lite and the default `hybrid` selector, 150 tools per request, the
 * recording upstream. Small requests are timed one after another, first alone, then while one
 * prompt as large as the body limit allows is being selected; the figure is how far the small
 * requests' latency moves (the target: under 50 ms).
 *
 * The client, the proxy and the recording upstream share one process and one event loop, so
 * the figure also holds the upstream's own read and parse of the 8 MiB body it is forwarded:
 * it bounds what the proxy adds from above.
 */
import { optionsFromVars } from '../../src/hono/index.js';
import { startNodeServer, useLiteFromDisk } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';
import { openAITools, wideToolSet } from '../support/wide-tool-set.js';
import { startUpstreamFixture } from './upstream-fixture.js';

/** What {@link runBigPromptBench} measured, in milliseconds. */
export interface BigPromptFigures {
  readonly bigBytes: number;
  readonly bigMs: number;
  readonly alone: { readonly n: number; readonly p50: number; readonly max: number };
  readonly during: { readonly n: number; readonly p50: number; readonly max: number };
}

const TOKEN = 'big-prompt-token-0123456789abcdef';
const SENTENCE = 'Please check the weather in Oslo and then email Ana the summary of the quarterly report. ';

/** Run the measurement: `modelDir` is the USE-lite folder, `bodyLimit` the proxy's (default 8 MiB). */
export async function runBigPromptBench(modelDir: string, bodyLimit = 8 * 1024 * 1024, aloneCount = 40): Promise<BigPromptFigures> {
  const upstream = await startUpstreamFixture();
  const embedder = useLiteFromDisk(modelDir);
  if (!embedder) throw new Error(`no USE-lite model in ${modelDir}`);
  const server = await startNodeServer({
    ...optionsFromVars({ LOOPCTL_TOKEN: TOKEN, PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL, PROXY_ANTHROPIC_BASE_URL: upstream.anthropicBaseURL }),
    registry: new ToolRegistry(),
    embedder,
    port: 0,
  });
  try {
    const tools = openAITools(wideToolSet());
    const bodyOf = (content: string): string => JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content }], tools });
    const post = async (content: string, body = bodyOf(content)): Promise<void> => {
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body,
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`);
    };
    const timed = async (content: string): Promise<number> => {
      const started = performance.now();
      await post(content);
      return performance.now() - started;
    };
    await post('warm up: the weather in Oslo'); // loads the model and embeds the corpus
    for (let i = 0; i < 5; i += 1) await post(`warm up ${i}: the weather in Bergen`);
    const alone: number[] = [];
    for (let i = 0; i < aloneCount; i += 1) alone.push(await timed(`weather in Oslo ${i}`));
    // The largest prompt the body limit admits, with the request's own JSON around it.
    const room = bodyLimit - JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: '' }], tools }).length - 1024;
    const big = SENTENCE.repeat(Math.floor(room / SENTENCE.length));
    const bigBody = bodyOf(big); // built before the clock starts: the client's own work is not the proxy's
    const bigStarted = performance.now();
    let done = false;
    const bigRequest = post(big, bigBody).then(() => {
      done = true;
      return performance.now() - bigStarted;
    });
    const during: number[] = [];
    // Only requests that began while the big one was in the proxy count.
    while (!done) during.push(await timed(`weather in Oslo during ${during.length}`));
    const bigMs = await bigRequest;
    return { bigBytes: big.length, bigMs, alone: summary(alone), during: summary(during) };
  } finally {
    await server.close();
    await upstream.close();
  }
}

function summary(values: readonly number[]): { n: number; p50: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: sorted[Math.floor((sorted.length - 1) / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
}
