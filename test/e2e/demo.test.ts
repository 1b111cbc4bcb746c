/**
 * The demo page on the WASM path: selection results and their explanations, the IndexedDB
 * corpus cache across a reload, tools.json validation, and no request leaving 127.0.0.1; the
 * sample prompts following a dropped tools file, and a chat without a model server saying so.
 */

import { createServer } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';
import { type HookState, type Launched, launch, readState, waitReady } from './browser.js';
import { type StaticServer, serveStatic } from './serve.js';

let model: ScriptedModelServer;
let server: StaticServer;
let browser: Launched;
let page: Page;

const result = (state: HookState, id: string) => {
  const found = state.results.find((r) => r.id === id);
  if (!found) throw new Error(`no ${id} result in ${JSON.stringify(state.results.map((r) => r.id))}`);
  return found;
};

beforeAll(async () => {
  model = await startScriptedModelServer();
  // The page reaches the model same-origin through the static server (no CORS on the stand-in).
  server = await serveStatic('build/demo', { proxy: { prefix: '/v1/', target: model.url } });
  browser = await launch();
  page = await browser.newPage();
});

afterEach(() => {
  expect(browser.external, 'requests outside 127.0.0.1').toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await model?.close();
});

describe('demo page (WASM)', () => {
  it('takes the corpus from the shipped vectors on first load (embeds no tool) and advertises the weather tools', async () => {
    await page.goto(`${server.url}?device=wasm`);
    const state = await waitReady(page);
    expect(state.phase).toBe('ready');
    expect(state.crossOriginIsolated).toBe(true);
    expect(state.backend?.device).toBe('wasm');
    // With shipped vectors the page embeds only prompts: one WASM thread.
    expect(state.backend?.numThreads).toBe(1);
    expect(state.corpus).toMatchObject({
      source: 'shipped',
      corpusEmbeds: 0,
      seeded: state.registry.count,
      cacheHits: 0,
      warnings: [],
    });
    expect(state.registry.count).toBeGreaterThanOrEqual(50);
    expect(server.requests).toContain('/vectors/demo.lcv');
    await expect(page.locator('[data-chip=corpus]').textContent()).resolves.toContain('shipped vectors, 0 embedded');

    const embedding = result(state, 'embedding');
    expect(embedding.fellOpen).toBeUndefined();
    expect(embedding.names).toContain('get_weather_forecast');
    expect(embedding.ranked[0]?.name).toMatch(/weather/);
    expect(embedding.names.length).toBeLessThanOrEqual(6);

    // Keyword explains itself with the words that matched.
    const keyword = result(state, 'keyword');
    const forecast = keyword.ranked.find((t) => t.name === 'get_weather_forecast');
    expect(forecast?.matched).toContain('weather');
    expect(result(state, 'bm25').names).toContain('get_weather_forecast');

    // What the state says is what the page shows.
    await expect(page.locator('[data-selector=embedding] [data-tool=get_weather_forecast]').count()).resolves.toBe(1);
    await expect(
      page.locator('[data-selector=keyword] [data-tool=get_weather_forecast] mark').first().textContent(),
    ).resolves.toBe('weather');
    await expect(page.locator('[data-chip=backend]').textContent()).resolves.toContain('WASM');
    await expect(page.locator('.chart rect.chart-embedding').count()).resolves.toBe(1);
  });

  it('reloads with corpus vectors from IndexedDB and embeds nothing (auto falls back to WASM)', async () => {
    await page.goto(server.url); // device=auto: this context has no WebGPU adapter
    const state = await waitReady(page);
    expect(state.backend?.device).toBe('wasm');
    expect(state.backend?.fallbackReason).toMatch(/no WebGPU adapter/);
    expect(state.corpus).toMatchObject({ source: 'idb', corpusEmbeds: 0, cacheHits: 1 });
    await expect(page.locator('[data-chip=corpus]').textContent()).resolves.toContain('from cache, 0 embedded');
    expect(result(state, 'embedding').names).toContain('get_weather_forecast');
  });

  it('re-selects as the prompt changes', async () => {
    const before = (await readState(page)).selections;
    await page.fill('#prompt', 'how much is 250 euros in japanese yen');
    await page.waitForFunction(
      (n) => (window as unknown as { __loopctl: { state: { selections: number } } }).__loopctl.state.selections > n,
      before,
    );
    const state = await readState(page);
    expect(result(state, 'embedding').names).toContain('convert_currency');
    expect(result(state, 'bm25').names).toContain('convert_currency');
    // No corpus work for a new prompt: only the query is embedded.
    expect(state.corpus?.corpusEmbeds).toBe(0);
  });

  it("runs the loop in the page with the chosen selector and shows each turn's tools", async () => {
    model.enqueue(
      { toolCalls: [{ name: 'get_weather_forecast', arguments: { city: 'Paris', days: 2 } }] },
      { text: 'Tomorrow in Paris: light rain, 14 °C.' },
    );
    await page.click('#chat summary');
    await page.fill('#chat input[name=baseURL]', `${server.url}v1`);
    await page.fill('#chat input[name=model]', 'scripted');
    await page.selectOption('#chat select[name=selector]', 'embedding');
    await page.fill('#chat input[name=message]', "what's the weather in Paris tomorrow");
    await page.click('#chat button[type=submit]');
    await page.waitForSelector('#chat .chat-run .chat-note', { timeout: 30_000 });

    const [first, second] = await model.waitForRequests(2);
    const advertised = ((first?.json as { tools?: { function: { name: string } }[] } | undefined)?.tools ?? []).map(
      (t) => t.function.name,
    );
    expect(advertised).toContain('get_weather_forecast');
    expect(advertised.length).toBeLessThanOrEqual(6);
    expect(second?.json).toBeTruthy();

    const turns = await page.locator('#chat .chat-turn-label').allTextContents();
    expect(turns[0]).toMatch(/Turn 1 · embedding · \d+\/67 tools/);
    await expect(
      page.locator('#chat .chat-turn').first().locator('.tool-chip', { hasText: 'get_weather_forecast' }).count(),
    ).resolves.toBe(1);
    await expect(page.locator('#chat .chat-tool').first().textContent()).resolves.toContain('get_weather_forecast');
    await expect(page.locator('#chat .chat-assistant').last().textContent()).resolves.toContain('light rain');
    // Settings persist locally; the key field stays empty (none given).
    expect(await page.evaluate(() => localStorage.getItem('loopctl.chat.baseURL'))).toBe(`${server.url}v1`);
  });

  it("learns the chat's tool turn into IndexedDB, keeps it across a reload, and forgets it on request", async () => {
    // The run above called get_weather_forecast successfully with "learn" on (the default).
    const learnedLine = (text: string) =>
      page.waitForSelector(`#chat .chat-learned >> text="${text}"`, { timeout: 30_000 });
    await learnedLine('Learned from 1 prompt (kept in this browser only).');
    expect(await learnedKeys(page)).toHaveLength(2); // the examples and the pointer to them

    // The page's first dense ranking after a reload loads them back from IndexedDB.
    await page.reload();
    await waitReady(page);
    await page.click('#chat summary');
    await learnedLine('Learned from 1 prompt (kept in this browser only).');

    await page.click('#chat button[data-action=forget-learned]');
    await page.waitForSelector('#chat .chat-log .chat-note:has-text("Learned prompts removed")');
    await learnedLine('Nothing learned in this browser yet.');
    expect(await learnedKeys(page)).toEqual([]);
    await page.reload();
    await waitReady(page);
    expect(await learnedKeys(page)).toEqual([]);
  });

  it('rejects a bad tools.json with the path of each problem, then loads a good one', async () => {
    await page.setInputFiles('#tools-file', {
      name: 'tools.json',
      mimeType: 'application/json',
      buffer: Buffer.from(
        JSON.stringify([
          { name: 'ok_tool', description: 'fine', parameters: { type: 'object' } },
          { name: 3 },
          'nope',
          { name: 'send email!' },
        ]),
      ),
    });
    await page.waitForSelector('#tools-errors:not([hidden])');
    const errors = await page.locator('#tools-errors').textContent();
    // The library's reader, as ToolRegistry.register: the same messages, the name rule said.
    expect(errors).toContain('[1].name: 3 is refused: tool names are 1-64 printable ASCII characters');
    expect(errors).toContain('[2]: must be an object');
    expect(errors).toContain(
      '[3].name: "send email!" is refused: tool names are 1-64 printable ASCII characters, no spaces',
    );

    const tools = [
      {
        name: 'get_forecast',
        description: 'Weather forecast for a city for the coming days.',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
      {
        type: 'function',
        function: {
          name: 'send_invoice',
          description: 'Email an invoice to a customer.',
          parameters: { type: 'object' },
        },
      },
      {
        name: 'search_flights',
        description: 'Find flights between two airports on a date.',
        input_schema: { type: 'object' },
      },
    ];
    const errorsAfter = await page.evaluate(
      (text) =>
        (window as unknown as { __loopctl: { loadToolsText(t: string): Promise<string[]> } }).__loopctl.loadToolsText(
          text,
        ),
      JSON.stringify({ tools }),
    );
    expect(errorsAfter).toEqual([]);
    const state = await readState(page);
    expect(state.registry.count).toBe(3);
    expect(state.corpus).toMatchObject({ source: 'embedded', corpusEmbeds: 3 });
    expect(await page.locator('#tools-errors').isHidden()).toBe(true);
  });

  it('logged no page errors', () => {
    // ORT's own "nodes were not assigned" notice is a console warning, not an error here.
    expect(browser.errors.filter((e) => !/VerifyEachNodeIsAssignedToAnEp/.test(e))).toEqual([]);
  });
});

describe('demo page: after a user drops in their own tools', () => {
  // Runs after the page-error check above: a refused connection is a console error by design here.
  it('the sample prompts, and the prompt box, follow the dropped tools', async () => {
    // The tools file of 'rejects a bad tools.json…' is still on the page.
    const samples = await page.locator('#samples button').allTextContents();
    expect(samples).toEqual([
      'weather forecast for a city for the coming days',
      'email an invoice to a customer',
      'find flights between two airports on a date',
    ]);
    expect(await page.inputValue('#prompt')).toBe(samples[0]);
  });

  it('a chat with no model server names the URL it tried and what to do', async () => {
    const port = await closedPort();
    await page.evaluate(() => {
      (document.querySelector('#chat') as HTMLDetailsElement).open = true;
    });
    const runs = await page.locator('#chat .chat-run').count();
    await page.fill('#chat input[name=baseURL]', `http://127.0.0.1:${port}/v1`);
    await page.fill('#chat input[name=message]', 'send the invoice to Kim');
    await page.click('#chat button[type=submit]');
    const run = page.locator('#chat .chat-run').nth(runs);
    await run.locator('.chat-note').waitFor({ timeout: 30_000 });
    const error = await run.locator('.chat-error').allTextContents();
    expect(error.join('\n')).toContain(`No model server answered at http://127.0.0.1:${port}/v1/chat/completions`);
    expect(error.join('\n')).toContain('ollama serve');
    expect(error.join('\n')).not.toMatch(/^error: openai request failed: Failed to fetch$/m);
  });
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

/** The learned-example keys in the demo's real IndexedDB store. */
function learnedKeys(page: Page): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((done, fail) => {
        const open = indexedDB.open('loopctl-demo');
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const keys = db.transaction('vectors').objectStore('vectors').getAllKeys();
          keys.onerror = () => fail(keys.error);
          keys.onsuccess = () => {
            db.close();
            done(keys.result.map(String).filter((key) => key.startsWith('learned:')));
          };
        };
      }),
  );
}
