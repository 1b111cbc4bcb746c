/**
 * The demo page's start-up order on the WASM path: with the model download held back by the
 * server, everything that needs no model goes ahead — onnxruntime-web's runtime (its `.wasm`
 * download, compile and threads) and the corpus from the shipped vectors, written to IndexedDB —
 * so once the model arrives only the session, the query embedding and the first selection remain.
 * And the lazily imported chunks download with the page instead of one after another.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Launched, launch, readState, waitReady } from './browser.js';
import { type StaticServer, serveStatic } from './serve.js';

const MODEL = '/models/use-lite/onnx/model_quantized.onnx';
const RUNTIME_WASM = '/ort/ort-wasm-simd-threaded.wasm';

let server: StaticServer;
let browser: Launched;
let page: Page;
let release!: () => void;
const released = new Promise<void>((resolve) => {
  release = resolve;
});

beforeAll(async () => {
  server = await serveStatic('build/demo', { hold: (path) => (path === MODEL ? released : undefined) });
  browser = await launch();
  page = await browser.newPage();
});

afterAll(async () => {
  release();
  await browser?.close();
  await server?.close();
});

/** Corpus entries the page has stored in its IndexedDB (0 before the database exists). */
function storedCorpora(target: Page): Promise<number> {
  return target.evaluate(async () => {
    // Never create the database here: the page's cache creates it with its store.
    const names = (await indexedDB.databases()).map((db) => db.name);
    if (!names.includes('loopctl-demo')) return 0;
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('loopctl-demo');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    try {
      if (!db.objectStoreNames.contains('vectors')) return 0;
      const keys = await new Promise<IDBValidKey[]>((resolve, reject) => {
        const request = db.transaction('vectors').objectStore('vectors').getAllKeys();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      return keys.filter((key) => String(key).startsWith('corpus:')).length;
    } finally {
      db.close();
    }
  });
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what} (requests: ${server.requests.join(', ')})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('demo page start-up (WASM)', () => {
  it('starts the runtime and stores the shipped corpus in IndexedDB while the model is still downloading', async () => {
    // device=auto in a browser that has WebGPU's API (no adapter here): the page does not preload the
    // runtime with its HTML, so what fetches it early is the embedder's own start-up.
    await page.goto(server.url);
    expect(
      await page.evaluate(() => 'gpu' in navigator && document.querySelector('link[rel=preload][as=fetch]') === null),
    ).toBe(true);
    await until('the WASM runtime to be requested', () => server.requests.includes(RUNTIME_WASM));
    await until('the corpus to land in IndexedDB', async () => (await storedCorpora(page)) === 1);

    const waiting = await readState(page);
    expect(waiting.phase).toBe('loading-model');
    // The lexical selectors answer before the model is there.
    expect(waiting.results.map((r) => r.id)).toEqual(['keyword', 'bm25']);
    expect(server.requests).toContain('/vectors/demo.lcv');

    release();
    const state = await waitReady(page);
    expect(state.backend?.device).toBe('wasm');
    expect(state.corpus).toMatchObject({
      source: 'shipped',
      corpusEmbeds: 0,
      seeded: state.registry.count,
      warnings: [],
    });
    // The runtime's start-up is timed from the start of the load (it overlapped the held download).
    const phases = (state.backend as unknown as { loadPhases: { runtime: number } }).loadPhases;
    expect(phases.runtime).toBeGreaterThan(0);
    expect(phases.runtime).toBeLessThanOrEqual(state.backend?.loadMs ?? 0);
    expect(state.results.find((r) => r.id === 'embedding')?.names).toContain('get_weather_forecast');
    expect(browser.external).toEqual([]);
    expect(browser.errors.filter((e) => !/VerifyEachNodeIsAssignedToAnEp/.test(e))).toEqual([]);
  });
});

describe('demo page preloads', () => {
  it('fetches its lazy chunks, the runtime glue and (on WASM) the runtime with the page, before its script runs', async () => {
    const entry = /<script type="module"[^>]* src="\.(\/assets\/index-[^"]+\.js)"/.exec(
      readFileSync('build/demo/index.html', 'utf8'),
    )?.[1];
    expect(entry).toBeDefined();
    const lazy = readdirSync('build/demo/assets')
      .filter((name) => /^(ort\.wasm\.min|corpus-codec|vectors-source|learned-store)-.*\.js$/.test(name))
      .map((name) => `/assets/${name}`);
    expect(lazy).toHaveLength(4);
    // With ?device=wasm the runtime's .wasm itself is fetched with the HTML too.
    const wanted = [...lazy, '/ort/ort-wasm-simd-threaded.mjs', RUNTIME_WASM];
    // The entry script is held until everything it would import lazily has been requested (or 15 s).
    let preloaded = false;
    const second = await serveStatic('build/demo', {
      hold: (path) => {
        if (path !== entry) return undefined;
        const deadline = Date.now() + 15_000;
        return new Promise<void>((resolve) => {
          const poll = () => {
            preloaded = wanted.every((want) => second.requests.includes(want));
            if (preloaded || Date.now() > deadline) resolve();
            else setTimeout(poll, 50);
          };
          poll();
        });
      },
    });
    const other = await launch();
    try {
      const tab = await other.newPage();
      await tab.goto(`${second.url}?device=wasm`);
      const state = await waitReady(tab);
      expect(state.phase).toBe('ready');
      expect(preloaded, `requested before the entry ran: ${second.requests.join(', ')}`).toBe(true);
      // Fetched once: the runtime's own fetch took the preloaded response.
      expect(second.requests.filter((path) => path === RUNTIME_WASM)).toHaveLength(1);
      expect(other.errors.filter((e) => !/VerifyEachNodeIsAssignedToAnEp/.test(e))).toEqual([]);
    } finally {
      await other.close();
      await second.close();
    }
  });
});
