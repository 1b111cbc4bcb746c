/**
 * Under `wrangler dev` (local, no login; the repo's own wrangler), two real starts:
 *
 * - `examples/worker/`, a user's project depending on loopctl through `file:../..` (linked here
 *   as npm links a `file:` dependency), serves `/v1/tools` and `/v1/select` for its own tools;
 *   chunked over-limit bodies get 413 JSON every time through wrangler dev's proxy.
 * - `npm start` (scripts/start-worker.mjs) passes MODEL_BASE_URL and friends from the
 *   environment: a run reaches the scripted model named there, and a proxy call the upstream
 *   named by PROXY_OPENAI_BASE_URL (not MODEL_BASE_URL's); the demo page and the API share
 *   the origin, and anything else than GET/HEAD outside the API is a JSON 405 (not an empty one).
 *
 * Needs the built package (`npm run build`) and, for `npm start`, the demo page (`npm run build:demo`).
 */

import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFLINE_ENV } from '../../scripts/start-worker.mjs';
import type { UpstreamFixture } from '../proxy/upstream-fixture.js';
import { startUpstreamFixture } from '../proxy/upstream-fixture.js';
import type { ModelFixture } from './model-fixture.js';
import { startModelFixture } from './model-fixture.js';
import { parseSse } from './suite.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const example = join(root, 'examples', 'worker');
const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const TOKEN = 'wrangler-dev-token-0123456789';

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

interface Started {
  child: ChildProcess;
  url: string;
  log: () => string;
}

async function start(command: string[], cwd: string, port: number, env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, command, {
    cwd,
    env: { ...process.env, ...OFFLINE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (chunk: Buffer): void => {
    log = (log + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited early:\n${log}`);
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).ok)
        return { child, url, log: () => log };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGTERM');
  throw new Error(`did not start within 90 s:\n${log}`);
}

function stop(started: Started | undefined): Promise<void> {
  const child = started?.child;
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

describe('examples/worker under wrangler dev', () => {
  let server: Started | undefined;
  beforeAll(async () => {
    // What `npm install` does for "loopctl": "file:../..": a link to the package folder.
    const link = join(example, 'node_modules', 'loopctl');
    if (!existsSync(link) && !isLink(link)) {
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(root, link, 'dir');
    }
    const port = await freePort();
    server = await start(
      [
        wrangler,
        'dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--show-interactive-dev-session=false',
        '--var',
        `LOOPCTL_TOKEN:${TOKEN}`,
        // The proxy too, with the API's 256 KiB limit: its upstream is never reached here (the
        // bodies sent to it are all over the limit).
        '--var',
        'PROXY_OPENAI_BASE_URL:http://127.0.0.1:9/v1',
        '--var',
        'PROXY_MAX_BODY_BYTES:262144',
      ],
      example,
      port,
    );
  }, 120_000);
  afterAll(() => stop(server));

  it('lists its own tools and selects among them', async () => {
    const own = (JSON.parse(readFileSync(join(example, 'tools.json'), 'utf8')) as { name: string }[]).map(
      (tool) => tool.name,
    );
    const listed = (await (await fetch(`${server!.url}/v1/tools`, { headers: auth })).json()) as {
      tools: { name: string }[];
    };
    expect(listed.tools.map((tool) => tool.name)).toEqual(own);
    const response = await fetch(`${server!.url}/v1/select`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ prompt: 'Where is my parcel? The tracking number is 1Z999.', selector: 'bm25', k: 2 }),
    });
    const body = (await response.json()) as { advertised: string[]; registered: number; fellOpen: boolean };
    expect(response.status).toBe(200);
    expect(body.registered).toBe(own.length);
    expect(body.fellOpen).toBe(false);
    expect(body.advertised[0]).toBe('track_shipment');
    const refund = (await (
      await fetch(`${server!.url}/v1/select`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ prompt: 'refund my order 1234', k: 2 }),
      })
    ).json()) as { advertised: string[] };
    expect(refund.advertised).toContain('refund_order');
  });

  /** POST `size` bytes of JSON as a chunked upload (16 KiB chunks); the status, media type and body. */
  async function chunked(
    path: string,
    size: number,
  ): Promise<{ status: number; type: string | undefined; text: string }> {
    const big = new TextEncoder().encode(JSON.stringify({ prompt: 'x'.repeat(size), messages: [] }));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= big.length) return controller.close();
        controller.enqueue(big.subarray(sent, sent + 16 * 1024));
        sent += 16 * 1024;
      },
    });
    const response = await fetch(`${server!.url}${path}`, {
      method: 'POST',
      headers: auth,
      body,
      duplex: 'half',
    } as RequestInit);
    return {
      status: response.status,
      type: response.headers.get('content-type')?.split(';')[0],
      text: await response.text(),
    };
  }

  // In workerd the old drain failed ("only supports a single pending read"), so the 413 went out
  // mid-upload and wrangler dev's proxy answered 503 "Your worker restarted mid-request".
  it.each([300, 400, 1024])(
    'a %i KiB chunked body is 413 JSON 8 times of 8 through the dev proxy (/v1/select)',
    async (kib) => {
      const statuses: string[] = [];
      for (let i = 0; i < 8; i++) {
        const { status, type, text } = await chunked('/v1/select', kib * 1024);
        statuses.push(`${status} ${type} ${text.includes('"body_too_large"')}`);
      }
      expect(statuses).toEqual(Array(8).fill('413 application/json true'));
    },
  );

  it('the proxy reads bodies with the same reader: a 400 KiB chunked body is 413 JSON 8 times of 8', async () => {
    const statuses: string[] = [];
    for (let i = 0; i < 8; i++) {
      const { status, type, text } = await chunked('/v1/chat/completions', 400 * 1024);
      statuses.push(`${status} ${type} ${text.includes("the proxy's limit")}`);
    }
    expect(statuses).toEqual(Array(8).fill('413 application/json true'));
  });
});

describe('npm start passes the documented variables from the environment', () => {
  let server: Started | undefined;
  let model: ModelFixture | undefined;
  let upstream: UpstreamFixture | undefined;
  beforeAll(async () => {
    model = await startModelFixture();
    upstream = await startUpstreamFixture();
    const port = await freePort();
    server = await start([join(root, 'scripts', 'start-worker.mjs'), '--light', '--port', String(port)], root, port, {
      LOOPCTL_TOKEN: TOKEN,
      MODEL_BASE_URL: model.baseURL,
      MODEL_NAME: 'scripted-from-env',
      PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL,
      PROXY_SELECTOR: 'bm25',
    });
  }, 180_000);
  afterAll(async () => {
    await stop(server);
    await model?.close();
    await upstream?.close();
  });

  it('PROXY_OPENAI_BASE_URL and PROXY_SELECTOR from the environment reach the proxy', async () => {
    const tools = ['get_weather', 'send_email', 'stock_price'].map((name) => ({
      type: 'function',
      function: { name, description: `${name.replace('_', ' ')} tool`, parameters: { type: 'object' } },
    }));
    const response = await fetch(`${server!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...auth, 'x-loopctl-k': '1' },
      body: JSON.stringify({ model: 'up', messages: [{ role: 'user', content: 'get the weather' }], tools }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(upstream!.requests).toHaveLength(1);
    expect(upstream!.requests[0]?.path).toBe('/v1/chat/completions');
    expect(model!.server.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(0);
    const passed = /from the environment: (.*)/.exec(server!.log())?.[1]?.split(', ');
    expect(passed).toEqual(expect.arrayContaining(['PROXY_OPENAI_BASE_URL', 'PROXY_SELECTOR']));
  });

  it('MODEL_BASE_URL, MODEL_NAME and LOOPCTL_TOKEN from the environment reach the worker', async () => {
    const response = await fetch(`${server!.url}/v1/runs`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ prompt: '[[scenario:text]] Say hello.', selector: 'static' }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const done = parseSse(text).find((event) => event.event === 'done')?.data;
    expect(done?.text).toBe('Hello from the scripted model.');
    const sent = model?.server.requests.at(-1)?.json as { model?: string } | undefined;
    expect(sent?.model).toBe('scripted-from-env');
    expect(server!.log()).toContain('from the environment: LOOPCTL_TOKEN, MODEL_BASE_URL, MODEL_NAME');
  });
});

describe('npm start: the demo page and the API share one origin, every refusal as JSON', () => {
  // Reuses nothing from above: its own start (light entry), assets from build/demo.
  let server: Started | undefined;
  beforeAll(async () => {
    const port = await freePort();
    server = await start([join(root, 'scripts', 'start-worker.mjs'), '--light', '--port', String(port)], root, port, {
      LOOPCTL_TOKEN: TOKEN,
    });
  }, 180_000);
  afterAll(() => stop(server));

  it('GET / is the page; OPTIONS / and POST /index.html are JSON 405s; an unknown path is a JSON 404', async () => {
    const page = await fetch(`${server?.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    await page.body?.cancel();
    for (const [method, path] of [
      ['OPTIONS', '/'],
      ['POST', '/index.html'],
    ]) {
      const refused = await fetch(`${server?.url}${path}`, { method });
      expect(refused.status).toBe(405);
      expect(refused.headers.get('allow')).toBe('GET, HEAD');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    }
    const missing = await fetch(`${server?.url}/no-such-page`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
