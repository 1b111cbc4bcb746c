/**
 * `npm run bench:big-prompt`'s upstreams, each in a process of its own so that its read of what
 * it is forwarded is not counted against the proxy's event loop.
 *
 * - `recording` (the small requests'): the recording upstream fixture, keeping only its latest
 *   few requests.
 * - `drain` (the big prompt's): reads the body to its end, checks its length against
 *   content-length, and answers one fixed Messages reply. The fixture would parse the 8 MiB body,
 *   validate it and forward it once more to its scripted server in the same process: 100 ms or
 *   more of CPU a round on the two cores the proxy shares with it, a cost a real upstream pays
 *   on its own machines. The body's content is what test/proxy/body-in-steps.test.ts checks.
 *
 * Sends `{ openAIBaseURL, anthropicBaseURL }` once it listens and exits when the parent
 * disconnects.
 *
 *   node big-prompt-upstream-child.mjs recording|drain
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startUpstreamFixture } from './upstream-fixture.js';

if (!process.send) throw new Error('big-prompt-upstream-child: start it with fork()');
const mode = process.argv[2] ?? 'recording';
if (mode === 'drain') {
  const message = JSON.stringify({
    id: 'msg_drain',
    type: 'message',
    role: 'assistant',
    model: 'scripted',
    content: [{ type: 'text', text: 'done' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  });
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.byteLength;
    });
    req.on('end', () => {
      const declared = Number(req.headers['content-length'] ?? Number.NaN);
      if (Number.isFinite(declared) && declared !== bytes) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'short body' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(message);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.send({ openAIBaseURL: `${base}/v1`, anthropicBaseURL: base });
  process.once('disconnect', () => {
    server.closeAllConnections();
    server.close();
  });
} else {
  const upstream = await startUpstreamFixture({ keepRequests: 4 });
  process.send({ openAIBaseURL: upstream.openAIBaseURL, anthropicBaseURL: upstream.anthropicBaseURL });
  process.once('disconnect', () => {
    void upstream.close();
  });
}
