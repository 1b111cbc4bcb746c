/**
 * `npm run bench:big-prompt`'s proxy, in a process of its own so that only its own event loop
 * stalls on the big body: the Node entry with USE-lite from disk and the default selector
 * (`hybrid`). Started by {@link runBigPromptBench} with `fork`; it sends `{ url }` once it
 * listens, answers 'stalls' with its event loop's longest delay and its CPU time (all threads)
 * since the last 'reset', and exits when the parent disconnects (after writing a CPU profile
 * when run with `--cpu-prof`).
 *
 *   node big-prompt-proxy-child.mjs <model-dir> <openai-base-url> <anthropic-base-url> <token>
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { optionsFromVars } from '../../src/hono/index.js';
import { startNodeServer, useLiteFromDisk } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';

const [modelDir, openAIBaseURL, anthropicBaseURL, token] = process.argv.slice(2);
if (!modelDir || !openAIBaseURL || !anthropicBaseURL || !token || !process.send) {
  throw new Error('usage: fork(big-prompt-proxy-child.mjs, [modelDir, openAIBaseURL, anthropicBaseURL, token])');
}
const embedder = useLiteFromDisk(modelDir);
const server = await startNodeServer({
  ...optionsFromVars({
    LOOPCTL_TOKEN: token,
    PROXY_OPENAI_BASE_URL: openAIBaseURL,
    PROXY_ANTHROPIC_BASE_URL: anthropicBaseURL,
  }),
  registry: new ToolRegistry(),
  embedder,
  port: 0,
});
process.send({ url: server.url });
// The proxy's own stalls: how late a 1 ms timer fires. 'reset' starts a window, 'stalls' reports it.
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
let cpuSince = process.cpuUsage();
process.on('message', (message) => {
  if (message === 'reset') {
    delay.reset();
    cpuSince = process.cpuUsage();
  }
  if (message === 'stalls') {
    const cpu = process.cpuUsage(cpuSince);
    process.send?.({
      maxMs: delay.max / 1e6,
      p99Ms: delay.percentile(99) / 1e6,
      cpuMs: (cpu.user + cpu.system) / 1e3,
      userMs: cpu.user / 1e3,
    });
  }
});
process.once('disconnect', () => {
  // process.exit() would skip writing the --cpu-prof profile; closing the server lets the loop end.
  void server.close();
});
