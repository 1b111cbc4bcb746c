/**
 * Shared by `scripts/screenshot.mjs` and `scripts/bench-browser.mjs`: build the demo page, serve
 * it with `vite preview` on 127.0.0.1 (COOP/COEP on), and drive Debian's Chromium through
 * playwright-core with a throwaway profile. Requests leaving 127.0.0.1 are recorded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build, preview } from 'vite';

export const repoRoot = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CONFIG = join(repoRoot, 'vite.demo.config.ts');

const BASE_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Build `build/demo` with the demo config. */
export async function buildDemo() {
  await build({ configFile: CONFIG, logLevel: 'warn' });
}

/**
 * Serve `build/demo` on a free port of 127.0.0.1.
 *
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function serveDemo() {
  const server = await preview({
    configFile: CONFIG,
    logLevel: 'warn',
    preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
  });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('vite preview did not report a URL');
  return { url, close: () => server.close() };
}

/**
 * Launch Chromium with a profile folder (a fresh temporary one unless given).
 *
 * @param {{ webgpu?: boolean, profile?: string, colorScheme?: 'light' | 'dark', deviceScaleFactor?: number, viewport?: { width: number, height: number } }} [options]
 */
export async function launchChromium(options = {}) {
  const profile = options.profile ?? mkdtempSync(join(tmpdir(), 'loopctl-browser-'));
  const args = [...BASE_ARGS, options.webgpu ? '--enable-unsafe-webgpu' : '--disable-gpu'];
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args,
    viewport: options.viewport ?? { width: 1320, height: 1000 },
    deviceScaleFactor: options.deviceScaleFactor ?? 1,
    colorScheme: options.colorScheme ?? 'light',
  });
  /** @type {string[]} */
  const external = [];
  context.on('request', (request) => {
    const url = new URL(request.url());
    const local = url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1';
    if (!local) external.push(request.url());
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    profile,
    external,
    /** Close the browser; removes the profile unless `keepProfile`. */
    close: async (keepProfile = false) => {
      await context.close();
      if (!keepProfile && !options.profile) rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Wait for the demo's `window.__loopctl.ready` and return its state as plain JSON.
 *
 * @param {import('playwright-core').Page} page
 */
export async function waitReady(page, timeout = 180_000) {
  await page.waitForFunction(() => '__loopctl' in window, undefined, { timeout });
  return page.evaluate(async () => {
    // @ts-expect-error the hook is the page's
    const hook = window.__loopctl;
    await hook.ready;
    return JSON.parse(JSON.stringify(hook.state));
  });
}
