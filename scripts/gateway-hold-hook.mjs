// How long the gateway itself holds each search, from inside its process: preload it into
// `loopctl mcp` (node --import) and it times each `search_tools` request from its arrival on
// stdin to the start of its answer's write on stdout, and appends the p50/p95 (the first search
// left out) to $GATEWAY_HOLD_OUT when the process exits. A client's round trip minus this is
// the pipe and the client's own work; this minus the ranking is the SDK's and the gateway's.
// One request in flight at a time (a bench's warm loop), over stdio.
//
//   GATEWAY_HOLD_OUT=/tmp/hold.txt node --import ./scripts/gateway-hold-hook.mjs bin/loopctl.mjs mcp --config mcp.json
import { appendFileSync } from 'node:fs';

const arrived = [];
const held = [];
const emit = process.stdin.emit;
process.stdin.emit = function (event, chunk, ...rest) {
  if (event === 'data' && String(chunk).includes('"search_tools"')) arrived.push(performance.now());
  return emit.call(this, event, chunk, ...rest);
};
const write = process.stdout.write;
process.stdout.write = function (chunk, ...rest) {
  // A search's answer carries rankedBy (its text copy escapes the quotes, its structuredContent does not).
  if (String(chunk).includes('"rankedBy"') && arrived.length > 0) held.push(performance.now() - arrived.shift());
  return write.call(this, chunk, ...rest);
};
process.on('exit', () => {
  const sorted = held.slice(1).sort((a, b) => a - b);
  if (sorted.length === 0) return;
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(2);
  const line = `gateway held ${sorted.length} warm searches: p50 ${at(50)} ms, p95 ${at(95)} ms\n`;
  if (process.env.GATEWAY_HOLD_OUT) appendFileSync(process.env.GATEWAY_HOLD_OUT, line);
  else process.stderr.write(line);
});
