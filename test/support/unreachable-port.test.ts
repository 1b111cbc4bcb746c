/**
 * The dead addresses the suites point "no model" and "upstream down" checks at stay dead for as
 * long as they are used: their ports are held by the test process, so no other process on a
 * busy machine can bind one and answer in its place, and a request to one fails as unreachable
 * (the worker's 503, the proxy's 502).
 */
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, optionsFromVars } from '../../src/hono/index.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { startUpstreamFixture } from '../proxy/upstream-fixture.js';
import { startModelFixture } from '../worker/model-fixture.js';
import { holdUnreachablePort } from './unreachable-port.js';

const TOKEN = 'unreachable-port-token-0123456789';

/** Try to bind `port` on loopback as another server would: `'bound'` or the error code. */
function bindOutcome(port: number): Promise<string> {
  return new Promise((done) => {
    const intruder = createServer();
    intruder.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? String(error)));
    intruder.listen(port, '127.0.0.1', () => intruder.close(() => done('bound')));
  });
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe('holdUnreachablePort', () => {
  it('keeps its port bound (EADDRINUSE for anyone else) and resets every connection', async () => {
    const dead = await holdUnreachablePort();
    closers.push(() => dead.close());
    expect(await bindOutcome(dead.port)).toBe('EADDRINUSE');
    const failure = await fetch(`${dead.origin}/v1/models`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as { cause?: { code?: string } }).cause?.code).toBe('ECONNRESET');
    // Still held after being connected to.
    expect(await bindOutcome(dead.port)).toBe('EADDRINUSE');
  });

  it('through the app: /v1/runs answers 503 model_unavailable and the proxy 502 upstream_unreachable', async () => {
    const dead = await holdUnreachablePort();
    closers.push(() => dead.close());
    const app = createApp({
      ...optionsFromVars({ LOOPCTL_TOKEN: TOKEN, MODEL_BASE_URL: `${dead.origin}/v1` }),
      registry: new ToolRegistry(),
      onError: () => undefined,
    });
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const run = await app.request('/v1/runs', { method: 'POST', headers, body: JSON.stringify({ prompt: 'hello' }) });
    expect(run.status).toBe(503);
    expect(((await run.json()) as { error: { code: string } }).error.code).toBe('model_unavailable');
    const proxied = await app.request('/v1/chat/completions', {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(proxied.status).toBe(502);
    expect(((await proxied.json()) as { error: { code: string } }).error.code).toBe('upstream_unreachable');
  });
});

describe('the fixtures hand out held dead addresses', () => {
  // (Whether a closed fixture lets its port go is not asserted: on a busy machine another
  // process may take a released port at once, the race this whole file is about.)
  it("the upstream fixture's deadURL stays unbindable while the fixture runs", async () => {
    const upstream = await startUpstreamFixture();
    closers.push(() => upstream.close());
    expect(await bindOutcome(portOf(upstream.deadURL))).toBe('EADDRINUSE');
    const failure = await fetch(`${upstream.deadURL}/v1/messages`, { method: 'POST' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
  });

  it("the model fixture's deadBaseURL stays unbindable while the fixture runs", async () => {
    const model = await startModelFixture();
    closers.push(() => model.close());
    expect(await bindOutcome(portOf(model.deadBaseURL))).toBe('EADDRINUSE');
    const failure = await fetch(`${model.deadBaseURL}/models`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
  });
});
