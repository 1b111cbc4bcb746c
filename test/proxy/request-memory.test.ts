/**
 * A proxied request leaves nothing behind once it is answered, on the Node entry over real
 * HTTP. Node's fetch keeps the signal a Request was built from until that Request is collected;
 * a listener on it that closed over the request's state made a cycle the collector could not
 * break, so every request's body, parsed tools and selection stayed in memory for good (about
 * 110 KB a request with 150 tools, 8 MiB more for an 8 MiB prompt).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optionsFromVars } from '../../src/hono/index.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';
import { openAITools, wideToolSet } from '../support/wide-tool-set.js';

const TOKEN = 'memory-proxy-token-0123456789abcdef';
const TOOLS = openAITools(wideToolSet());
const REPLY = JSON.stringify({
  id: 'chatcmpl-memory',
  object: 'chat.completion',
  created: 0,
  model: 'scripted',
  choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }],
});

const chunkOf = (content: string): string =>
  JSON.stringify({
    id: 'chatcmpl-memory',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'scripted',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  });

// A full collection on demand: the flag makes `gc` a global of contexts created after it.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

let upstream: Server;
let server: RunningServer;

beforeAll(async () => {
  // An upstream that reads the body and answers, keeping nothing (the fixture records requests).
  upstream = createServer((req, res) => {
    let streamed = false;
    req.on('data', (chunk: Buffer) => {
      streamed ||= chunk.includes('"stream":true');
    });
    req.on('end', () => {
      if (!streamed) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(REPLY);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const word of ['do', 'ne']) res.write(`data: ${chunkOf(word)}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  const { port } = upstream.address() as AddressInfo;
  server = await startNodeServer({
    ...optionsFromVars({ LOOPCTL_TOKEN: TOKEN, PROXY_OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` }),
    registry: new ToolRegistry(),
    port: 0,
  });
});

afterAll(async () => {
  await server?.close();
  await new Promise((done) => upstream?.close(done));
});

async function post(content: string, stream = false): Promise<number> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted', stream, messages: [{ role: 'user', content }], tools: TOOLS }),
  });
  const text = await response.text();
  if (stream && !text.includes('[DONE]')) throw new Error(`not a whole stream: ${text.slice(0, 200)}`);
  return response.status;
}

// Heap in use after full collections, with turns between them for finalizers to run.
async function heapAfterCollection(): Promise<number> {
  for (let i = 0; i < 3; i += 1) {
    collect();
    await new Promise((done) => setTimeout(done, 10));
  }
  return process.memoryUsage().heapUsed;
}

const MiB = 1024 * 1024;

describe('memory a proxied request leaves behind (Node entry)', () => {
  it('300 ordinary requests with 150 tools leave the heap about where it was', async () => {
    for (let i = 0; i < 20; i += 1) expect(await post(`weather in Oslo, warm up ${i}`)).toBe(200);
    const before = await heapAfterCollection();
    for (let i = 0; i < 300; i += 1) expect(await post(`weather in Oslo ${i}`)).toBe(200);
    const grown = (await heapAfterCollection()) - before;
    // Kept, they were about 33 MB; what remains is noise of a few MB at most.
    expect(grown).toBeLessThan(8 * MiB);
  }, 60_000);

  it('150 streamed answers leave the heap about where it was', async () => {
    for (let i = 0; i < 10; i += 1) expect(await post(`weather in Oslo, warm up ${i}`, true)).toBe(200);
    const before = await heapAfterCollection();
    for (let i = 0; i < 150; i += 1) expect(await post(`weather in Oslo ${i}`, true)).toBe(200);
    const grown = (await heapAfterCollection()) - before;
    expect(grown).toBeLessThan(8 * MiB);
  }, 60_000);

  it('large prompts, parsed in steps, are not kept after their answers', async () => {
    const large = 'Please check the weather in Oslo and email Ana the report. '.repeat(36_000); // about 2 MiB
    expect(await post(`${large} warm up`)).toBe(200);
    const before = await heapAfterCollection();
    for (let i = 0; i < 8; i += 1) expect(await post(`${large} ${i}`)).toBe(200);
    const grown = (await heapAfterCollection()) - before;
    // Kept, each would hold its 2 MiB text: 16 MiB or more.
    expect(grown).toBeLessThan(6 * MiB);
  }, 60_000);
});
