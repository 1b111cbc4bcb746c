/**
 * Issue 13 item 4: 32 concurrent first `hybrid` selects right after start share one model load
 * and one corpus embedding, and all answer 200 (Node entry, real HTTP).
 */
import { afterAll, expect, it } from 'vitest';
import { DEMO_TOOLS, registerDemoTools } from '../../demo/demo-tools.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';
import { KIND_DEFAULTS } from '../../src/select/kind-links.js';
import { coldBurst, PROMPTS, slowModel } from './cold-burst.js';

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
  // One query per request; every other text once: the corpus (one embedding of every tool text)
  // and the inputs the whole-task links read by meaning (kind-links.ts), embedded once per list.
  const texts = model.embedder.texts;
  const queries = texts.filter((text) => PROMPTS.includes(text));
  const others = texts.filter((text) => !PROMPTS.includes(text));
  expect(queries).toHaveLength(32);
  expect(new Set(others).size).toBe(others.length);
  expect(others.length).toBeGreaterThanOrEqual(DEMO_TOOLS.length);
  expect(others.length - DEMO_TOOLS.length).toBeLessThanOrEqual(KIND_DEFAULTS.maxInputs);
  expect(burst.advertised[0]).toContain('get_weather_forecast');
});
