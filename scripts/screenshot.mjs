#!/usr/bin/env node
/**
 * Takes `docs/demo.png`: builds the demo page, serves it on 127.0.0.1, opens it in headless
 * Chromium (WASM path, light theme), runs a sample prompt and captures the page.
 *
 * Usage: `node scripts/screenshot.mjs [--prompt "…"] [--out docs/demo.png] [--dark] [--no-build]`
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { buildDemo, launchChromium, repoRoot, serveDemo, waitReady } from './browser-harness.mjs';

const { values } = parseArgs({
  options: {
    prompt: { type: 'string', default: 'find a free slot with Priya next week and book a meeting' },
    out: { type: 'string', default: join(repoRoot, 'docs', 'demo.png') },
    dark: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
  },
});

if (!values['no-build']) await buildDemo();
const server = await serveDemo();
const browser = await launchChromium({
  colorScheme: values.dark ? 'dark' : 'light',
  deviceScaleFactor: 2,
  viewport: { width: 1320, height: 900 },
});
try {
  const { page } = browser;
  // First visit embeds the corpus; the second shows the steady state a returning user sees.
  await page.goto(`${server.url}?device=wasm`);
  await waitReady(page);
  await page.reload();
  await waitReady(page);
  await page.evaluate((prompt) => window.__loopctl.select(prompt), values.prompt);
  // Capture down to the chart and timings; the tool list and the chat panel are collapsed extras.
  const bottom = await page.evaluate(() => {
    const edges = ['.chart-card', '.timings-card'].map(
      (s) => document.querySelector(s)?.getBoundingClientRect().bottom ?? 0,
    );
    return Math.ceil(Math.max(...edges) + window.scrollY + 14);
  });
  mkdirSync(dirname(values.out), { recursive: true });
  await page.screenshot({ path: values.out, fullPage: true, clip: { x: 0, y: 0, width: 1320, height: bottom } });
  if (browser.external.length > 0)
    throw new Error(`the page requested outside 127.0.0.1: ${browser.external.join(', ')}`);
  console.log(`wrote ${relative(process.cwd(), values.out)} (1320×${bottom} CSS px at 2×)`);
} finally {
  await browser.close();
  await server.close();
}
