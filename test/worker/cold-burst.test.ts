/**
 * Issue 13 item 4: 32 concurrent first `hybrid` selects right after start share one model load
 * and one corpus embedding, and all answer 200 (Node entry, real HTTP).
 */
import { afterAll, expect, it } from 'vitest';
import { DEMO_TOOLS, registerDemoTools } from '../../demo/demo-tools.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';
import { coldBurst, slowModel } from './cold-burst.js';

const TOKEN = 'cold-burst-token-0123456789';
let server: RunningServer | undefined;
afterAll(() => server?.close());

it('32 concurrent first hybrid selects: one model load, one corpus embedding, 32 × 200', async () => {
  const model = slowModel(300);
  server = await startNodeServer({
    registry: registerDemoTools(new ToolRegistry()),
    token: TOKEN,
    port: 0,
    embedder: model.factory,
  });
  const burst = await coldBurst((init) => fetch(`${server!.url}/v1/select`, init), TOKEN, 32);
  expect(burst.statuses).toEqual(Array(32).fill(200));
  expect(burst.fellOpen).toBe(0);
  expect(model.loads()).toBe(1);
  // Every tool text once (one corpus embedding), plus one query per request.
  expect(model.embedder.texts.length).toBe(DEMO_TOOLS.length + 32);
  expect(burst.advertised[0]).toContain('get_weather_forecast');
});
