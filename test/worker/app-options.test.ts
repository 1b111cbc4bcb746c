/**
 * The app's entry points (createApp, denoHandler, createWorker) read an option set to
 * undefined as "not given": the default, or the value from the variables, stays in force.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDemoTools } from '../../demo/demo-tools.js';
import { createApp } from '../../src/hono/app.js';
import { denoHandler } from '../../src/hono/deno.js';
import { createWorker } from '../../src/hono/workers.js';
import { ToolRegistry } from '../../src/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';

const TOKEN = 'app-options-token-0123456789';
const bearer = { authorization: `Bearer ${TOKEN}` };

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer();
});
afterAll(() => server.close());

describe('an app option set to undefined', () => {
  it('createApp: loop.system undefined keeps the default system prompt; an undefined selector and max turns keep theirs', async () => {
    const app = createApp({
      registry: registerDemoTools(new ToolRegistry()),
      token: TOKEN,
      model: { baseURL: server.openAIBaseURL, model: 'scripted', apiKey: undefined },
      loop: { system: undefined, stream: undefined },
      defaultSelector: undefined,
      defaultMaxTurns: undefined,
      onError: () => undefined,
    });
    server.enqueue({ text: 'Sunny.' });
    const response = await app.request('/v1/runs', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'weather in Oslo?' }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(text).toContain('Sunny.');
    const sent = server.requests[0]?.json as { messages: { role: string; content: string }[]; stream?: boolean };
    expect(sent.messages[0]?.role).toBe('system');
    expect(sent.messages[0]?.content).toMatch(/helpful assistant/);
    expect(sent.stream).toBe(true);
  });

  it('denoHandler: token undefined keeps LOOPCTL_TOKEN from the variables', async () => {
    const handle = denoHandler({
      registry: registerDemoTools(new ToolRegistry()),
      token: undefined,
      vars: { LOOPCTL_TOKEN: TOKEN },
    });
    const response = await handle(new Request('http://app.test/v1/tools', { headers: bearer }));
    expect(response.status).toBe(200);
  });

  it("createWorker: an app() override set to undefined keeps the binding's value", async () => {
    const worker = createWorker({
      registry: () => registerDemoTools(new ToolRegistry()),
      app: () => ({ token: undefined, model: undefined }),
    });
    const response = await worker.fetch(new Request('http://app.test/v1/tools', { headers: bearer }), {
      LOOPCTL_TOKEN: TOKEN,
    });
    expect(response.status).toBe(200);
  });
});
