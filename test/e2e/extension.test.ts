/**
 * The Manifest V3 example: Chromium loads `examples/extension/dist` unpacked, its popup page
 * runs the embedding selector with the bundled model and ORT WASM (CSP 'wasm-unsafe-eval'),
 * and nothing is fetched from outside the extension.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extensionId, type Launched, launch } from './browser.js';

const FOLDER = 'examples/extension/dist';
const id = extensionId(FOLDER);

interface PopupState {
  phase: string;
  error?: string;
  backend?: string;
  corpus?: { source: string; corpusEmbeds: number };
  tools: number;
  names: string[];
}

let browser: Launched;

beforeAll(async () => {
  browser = await launch({ extension: FOLDER, allow: [`chrome-extension://${id}/`] });
});

afterAll(async () => {
  await browser?.close();
});

async function openPopup(): Promise<{ state: PopupState; isolated: boolean }> {
  const page = await browser.newPage();
  await page.goto(`chrome-extension://${id}/popup.html`);
  await page.waitForFunction(() => '__loopctl' in window, undefined, { timeout: 30_000 });
  return page.evaluate(async () => {
    const hook = (window as unknown as { __loopctl: { ready: Promise<unknown>; state: PopupState } }).__loopctl;
    await hook.ready;
    return { state: JSON.parse(JSON.stringify(hook.state)) as PopupState, isolated: crossOriginIsolated };
  });
}

describe('MV3 extension', () => {
  it('declares the CSP that lets WASM compile and nothing else', () => {
    const manifest = JSON.parse(readFileSync(`${FOLDER}/manifest.json`, 'utf8'));
    expect(manifest.manifest_version).toBe(3);
    expect(manifest.content_security_policy.extension_pages).toContain("script-src 'self' 'wasm-unsafe-eval'");
  });

  it('loads unpacked and its popup selects tools offline', async () => {
    const { state, isolated } = await openPopup();
    expect(state.error).toBeUndefined();
    expect(state.phase).toBe('ready');
    expect(state.backend).toMatch(/^WASM/);
    expect(isolated).toBe(true);
    expect(state.corpus).toMatchObject({ source: 'embedded' });
    expect(state.names.slice(0, 2)).toContain('get_weather_forecast');
    expect(browser.external, 'requests outside the extension').toEqual([]);
  });

  it('reopens with the corpus from its IndexedDB', async () => {
    const page = await browser.newPage();
    await page.reload();
    const state = await page.evaluate(async () => {
      const hook = (window as unknown as { __loopctl: { ready: Promise<unknown>; state: PopupState } }).__loopctl;
      await hook.ready;
      return JSON.parse(JSON.stringify(hook.state)) as PopupState;
    });
    expect(state.corpus).toMatchObject({ source: 'idb', corpusEmbeds: 0 });
    const names = await page.evaluate(
      (prompt) =>
        (window as unknown as { __loopctl: { select(p: string): Promise<string[]> } }).__loopctl.select(prompt),
      'email the invoice to the customer',
    );
    expect(names).toContain('send_email');
    expect(browser.external, 'requests outside the extension').toEqual([]);
  });
});
