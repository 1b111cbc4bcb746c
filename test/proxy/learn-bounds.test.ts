/**
 * The bounds of learning from traffic hold as configured, end to end through the Node entry:
 * each `PROXY_LEARN_*` variable reaches the store (settings → `learnBounds` → the file store),
 * and a tenant's stored state stays within it. The rules themselves are unit-tested on
 * `addExamples` (traffic-store.test.ts); this checks the wiring a deployment relies on, and the
 * declared defaults.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNodeServer } from '../../src/hono/node.js';
import { DEFAULT_LEARN_BOUNDS, tenantBytes, tenantFrom } from '../../src/hono/proxy/learn/tenant-state.js';
import { PROXY_SETTINGS } from '../../src/hono/settings.js';
import { ToolRegistry } from '../../src/index.js';
import { openAITools, wideToolSet } from '../support/wide-tool-set.js';
import { startUpstreamFixture, type UpstreamFixture } from './upstream-fixture.js';

const TOOLS = openAITools(wideToolSet());
const KEY = 'sk-bounds';
const HEADERS = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

let upstream: UpstreamFixture;
const folders: string[] = [];
const servers: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  upstream = await startUpstreamFixture();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});
afterAll(async () => {
  await upstream?.close();
});

/** A Node server learning into a fresh folder, with `vars` over the learning defaults. */
async function server(vars: Record<string, string>) {
  const folder = await mkdtemp(join(tmpdir(), 'loopctl-bounds-'));
  folders.push(folder);
  const started = await startNodeServer({
    registry: new ToolRegistry(),
    port: 0,
    vars: {
      PROXY_LEARN: 'on',
      PROXY_LEARN_DIR: folder,
      PROXY_AUTH: 'passthrough',
      PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL,
      PROXY_SELECTOR: 'bm25', // ranks the prompt without an embedder (fallen-open requests teach nothing)
      ...vars,
    },
  });
  servers.push(started);
  return { url: started.url, folder };
}

/** Conversation `n`: a prompt of `words` extra words, answered by a call of one tool. */
async function teach(url: string, n: number, words = 0): Promise<void> {
  const prompt = `Send the Oslo office reminder number ${n} ${'about the quarterly invoice '.repeat(words)}`.trim();
  const messages = [
    { role: 'user', content: prompt },
    {
      role: 'assistant',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'twilio_create_SMS_message', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: '{"ok": true}' },
  ];
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ model: 'm', messages, tools: TOOLS }),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  // Storing runs after the answer; one at a time keeps the order of the examples the order sent.
  await new Promise((done) => setTimeout(done, 40));
}

async function stored(url: string): Promise<{ query: string }[]> {
  const response = await fetch(`${url}/v1/learned`, { headers: HEADERS });
  return ((await response.json()) as { examples: { query: string }[] }).examples;
}

/** The tenant's file, as the store keeps it. */
async function tenantFile(folder: string) {
  const [file] = await readdir(folder);
  if (!file) throw new Error('nothing was stored');
  return tenantFrom(JSON.parse(await readFile(join(folder, file), 'utf8')));
}

describe('learning bounds, set by their variables', () => {
  it('declares each bound once, with its default', () => {
    expect(PROXY_SETTINGS.learnMaxExamples).toMatchObject({
      variable: 'PROXY_LEARN_MAX_EXAMPLES',
      default: DEFAULT_LEARN_BOUNDS.maxExamples,
    });
    expect(PROXY_SETTINGS.learnMaxBytes).toMatchObject({
      variable: 'PROXY_LEARN_MAX_BYTES',
      default: DEFAULT_LEARN_BOUNDS.maxBytes,
    });
    expect(PROXY_SETTINGS.learnWritesPerMinute).toMatchObject({
      variable: 'PROXY_LEARN_WRITES_PER_MINUTE',
      default: DEFAULT_LEARN_BOUNDS.writesPerMinute,
    });
    expect(DEFAULT_LEARN_BOUNDS).toEqual({ maxExamples: 2048, maxBytes: 1 << 20, writesPerMinute: 60 });
  });

  it('PROXY_LEARN_MAX_EXAMPLES: the newest examples of a tool list are kept', async () => {
    const { url } = await server({ PROXY_LEARN_MAX_EXAMPLES: '3' });
    for (let n = 1; n <= 6; n++) await teach(url, n);
    const kept = (await stored(url)).map((example) => example.query);
    expect(kept).toEqual([4, 5, 6].map((n) => `Send the Oslo office reminder number ${n}`));
  });

  it("PROXY_LEARN_MAX_BYTES: a tenant's examples stay within the bytes, the oldest going", async () => {
    const { url, folder } = await server({ PROXY_LEARN_MAX_BYTES: '2048' });
    for (let n = 1; n <= 12; n++) await teach(url, n, 8);
    const state = await tenantFile(folder);
    expect(tenantBytes(state)).toBeLessThanOrEqual(2048);
    const kept = (await stored(url)).map((example) => example.query);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(12);
    expect(kept.at(-1)).toContain('number 12 ');
    expect(kept.some((query) => query.includes('number 1 '))).toBe(false);
  });

  it('PROXY_LEARN_WRITES_PER_MINUTE: requests past the rate teach nothing', async () => {
    const { url, folder } = await server({ PROXY_LEARN_WRITES_PER_MINUTE: '4' });
    for (let n = 1; n <= 7; n++) await teach(url, n);
    const kept = (await stored(url)).map((example) => example.query);
    expect(kept).toEqual([1, 2, 3, 4].map((n) => `Send the Oslo office reminder number ${n}`));
    expect((await tenantFile(folder)).writes).toHaveLength(4);
  });

  it('a bound outside its declared range is refused at start, naming the variable', async () => {
    await expect(server({ PROXY_LEARN_MAX_BYTES: '10' })).rejects.toThrow(/PROXY_LEARN_MAX_BYTES|learnMaxBytes/);
    await expect(server({ PROXY_LEARN_WRITES_PER_MINUTE: '0' })).rejects.toThrow(
      /PROXY_LEARN_WRITES_PER_MINUTE|learnWritesPerMinute/,
    );
  });
});
