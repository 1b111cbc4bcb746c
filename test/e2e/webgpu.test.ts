/**
 * The WebGPU path: with --enable-unsafe-webgpu, headless Chromium exposes SwiftShader's
 * software adapter, so `device: 'webgpu'` really runs the model on the WebGPU execution
 * provider. Its top-k must match the WASM path's. SwiftShader is slow (seconds per batch), so
 * this runs on a ten-tool registry served next to the page.
 */

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TOOLS } from '../../demo/demo-tools.js';
import { type Launched, launch, waitReady } from './browser.js';
import { type StaticServer, serveStatic } from './serve.js';

const NAMES = [
  'get_current_weather',
  'get_weather_forecast',
  'convert_currency',
  'send_email',
  'create_calendar_event',
  'git_commit',
  'translate_text',
  'get_directions',
  'run_sql_query',
  'set_reminder',
];
const PROMPTS = [
  "what's the weather in Paris tomorrow",
  'how much is 250 euros in yen',
  'remind me to call mum at 6pm',
];
const K = 3;

interface Ranked {
  backend: string | undefined;
  corpus: { source: string; corpusEmbeds: number } | undefined;
  picks: { prompt: string; names: string[]; scores: Record<string, number> }[];
}

let server: StaticServer;
let browser: Launched;
let page: Page;
let hasAdapter = false;

beforeAll(async () => {
  const tools = DEMO_TOOLS.filter((tool) => NAMES.includes(tool.name));
  server = await serveStatic('build/demo', { files: { '/e2e-tools.json': JSON.stringify(tools) } });
  browser = await launch({ webgpu: true });
  page = await browser.newPage();
  await page.goto(`${server.url}?device=wasm&registry=e2e-tools.json&k=${K}`);
  await waitReady(page);
  hasAdapter = await page.evaluate(async () => {
    const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
    return Boolean(gpu && (await gpu.requestAdapter()));
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Load the page on `device` with an empty vector cache, then rank every prompt. */
async function rank(device: 'wasm' | 'webgpu'): Promise<Ranked> {
  // Same embedder id on both devices means a shared cache entry: clear it so each path embeds
  // its own corpus.
  await page.evaluate(
    () =>
      new Promise<void>((done) => {
        const request = indexedDB.deleteDatabase('loopctl-demo');
        request.onsuccess = request.onerror = request.onblocked = () => done();
      }),
  );
  // No shipped vectors either (`vectors=none`): each device must embed the corpus itself.
  await page.goto(`${server.url}?device=${device}&registry=e2e-tools.json&k=${K}&vectors=none`);
  const state = await waitReady(page, 110_000);
  const picks: Ranked['picks'] = [];
  for (const prompt of PROMPTS) {
    const results = await page.evaluate(
      (text) =>
        (
          window as unknown as {
            __loopctl: { select(p: string): Promise<{ id: string; ranked: { name: string; score?: number }[] }[]> };
          }
        ).__loopctl.select(text),
      prompt,
    );
    const embedding = results.find((r) => r.id === 'embedding');
    picks.push({
      prompt,
      names: (embedding?.ranked ?? []).map((t) => t.name),
      scores: Object.fromEntries((embedding?.ranked ?? []).map((t) => [t.name, t.score ?? NaN])),
    });
  }
  return { backend: state.backend?.device, corpus: state.corpus, picks };
}

describe('WebGPU vs WASM', () => {
  it('headless Chromium with --enable-unsafe-webgpu has a WebGPU adapter', () => {
    expect(hasAdapter).toBe(true);
  });

  it('gives the same top-k on WebGPU as on WASM', async (ctx) => {
    if (!hasAdapter) ctx.skip();
    const gpu = await rank('webgpu');
    expect(gpu.backend).toBe('webgpu');
    expect(gpu.corpus).toMatchObject({ source: 'embedded', corpusEmbeds: NAMES.length });
    const cpu = await rank('wasm');
    expect(cpu.backend).toBe('wasm');

    for (const [i, pick] of cpu.picks.entries()) {
      const other = gpu.picks[i];
      expect(other?.names.slice().sort(), pick.prompt).toEqual(pick.names.slice().sort());
      for (const name of pick.names)
        expect(other?.scores[name], `${pick.prompt}: ${name}`).toBeCloseTo(pick.scores[name] ?? NaN, 2);
    }
    expect(cpu.picks[0]?.names).toContain('get_weather_forecast');
    expect(cpu.picks[1]?.names).toContain('convert_currency');
    expect(cpu.picks[2]?.names).toContain('set_reminder');
    expect(browser.external, 'requests outside 127.0.0.1').toEqual([]);
  });
});
