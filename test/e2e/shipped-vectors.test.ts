/**
 * The demo page with and without its shipped vectors file (`vectors/demo.lcv`), each in a fresh
 * profile (empty IndexedDB): without the file, or with a damaged one, the page embeds the whole
 * corpus and still selects; a damaged file is reported as a warning, never trusted.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type Launched, launch, waitReady } from './browser.js';
import { type StaticServer, serveStatic } from './serve.js';

let server: StaticServer | undefined;
let browser: Launched | undefined;

afterEach(async () => {
  expect(browser?.external ?? [], 'requests outside 127.0.0.1').toEqual([]);
  await browser?.close();
  await server?.close();
  browser = undefined;
  server = undefined;
});

let cores = 1;

async function open(files: Record<string, Uint8Array> = {}, query = '') {
  server = await serveStatic('build/demo', { files });
  browser = await launch();
  const page = await browser.newPage();
  await page.goto(`${server.url}?device=wasm${query}`);
  cores = await page.evaluate(() => navigator.hardwareConcurrency);
  return waitReady(page);
}

const embedding = (state: Awaited<ReturnType<typeof open>>) => state.results.find((r) => r.id === 'embedding');

describe('shipped vectors on the demo page', () => {
  it('?vectors=none embeds every tool (the comparison the benchmark makes)', async () => {
    const state = await open({}, '&vectors=none');
    expect(state.corpus).toMatchObject({
      source: 'embedded',
      corpusEmbeds: state.registry.count,
      seeded: 0,
      warnings: [],
    });
    expect(server?.requests).not.toContain('/vectors/demo.lcv');
    // A page that embeds its corpus runs WASM threads on every core (up to 4; it is isolated).
    expect(state.crossOriginIsolated).toBe(true);
    expect(state.backend?.numThreads).toBe(Math.min(4, cores));
    expect(embedding(state)?.names).toContain('get_weather_forecast');
  });

  it('a bit-flipped file is refused with a warning; the corpus is embedded and the page selects', async () => {
    const bytes = new Uint8Array(readFileSync('build/demo/vectors/demo.lcv'));
    const at = Math.floor(bytes.length / 2);
    bytes[at] = (bytes[at] as number) ^ 0x20;
    const state = await open({ '/vectors/demo.lcv': bytes });
    expect(state.corpus).toMatchObject({ source: 'embedded', corpusEmbeds: state.registry.count, seeded: 0 });
    expect(state.corpus?.warnings).toEqual([expect.stringMatching(/^vectors file refused \(checksum mismatch/)]);
    expect(embedding(state)?.fellOpen).toBeUndefined();
    expect(embedding(state)?.names).toContain('get_weather_forecast');
  });

  it('a truncated file is refused the same way', async () => {
    const bytes = new Uint8Array(readFileSync('build/demo/vectors/demo.lcv')).subarray(0, 5000);
    const state = await open({ '/vectors/demo.lcv': bytes });
    expect(state.corpus?.warnings).toEqual([expect.stringMatching(/^vectors file refused \(truncated/)]);
    expect(state.corpus?.corpusEmbeds).toBe(state.registry.count);
  });
});
