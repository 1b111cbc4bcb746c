/**
 * The file-tool case table on `opfsFileSystem` in real Chromium: the table and the backend are
 * bundled with Vite into one page script, served on 127.0.0.1, and each case runs in the page
 * (a fresh OPFS directory per case) and reports back. Also: the default root persists across
 * a reload. Run with the e2e config:
 *
 *   npx vitest run -c vitest.e2e.config.ts test/e2e/opfs-file-tools.test.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FILE_CASES } from '../file-tools/file-cases.js';
import { type Launched, launch } from './browser.js';
import type { CaseReport } from './opfs-page.js';
import { type StaticServer, serveStatic } from './serve.js';

const ENTRY = fileURLToPath(new URL('./opfs-page.ts', import.meta.url));

interface PageHook {
  names: string[];
  run(name: string): Promise<CaseReport>;
  callOnDefaultRoot(tool: string, args: Record<string, unknown>): Promise<{ isError: boolean; content: string }>;
}

let empty: string;
let server: StaticServer;
let browser: Launched;
let page: Page;

/** The page script: the case table, the tools and the OPFS backend in one ES module. */
async function bundle(): Promise<Record<string, string>> {
  const output = await build({
    configFile: false,
    logLevel: 'warn',
    build: {
      write: false,
      target: 'es2022',
      minify: false,
      sourcemap: false,
      lib: { entry: ENTRY, formats: ['es'], fileName: 'opfs-page' },
    },
  });
  // With `write: false` the build returns its output in memory (one result per format).
  type Item = { type: string; isEntry?: boolean; code?: string };
  const results = (Array.isArray(output) ? output : [output]) as { output: Item[] }[];
  const chunks = results.flatMap((result) => result.output).filter((item) => item.type === 'chunk') as (Item & {
    fileName: string;
    code: string;
  })[];
  const entry = chunks.find((item) => item.isEntry);
  if (typeof entry?.code !== 'string') throw new Error('the OPFS page bundle has no entry chunk');
  // The entry and the chunks it loads on first use (the argument validator, …), served by name.
  return Object.fromEntries(
    chunks.map((chunk) => [chunk.isEntry ? '/opfs-page.js' : `/${chunk.fileName}`, chunk.code]),
  );
}

async function openPage(): Promise<void> {
  await page.goto(`${server.url}index.html`);
  await page.waitForFunction(() => '__opfsCases' in window, undefined, { timeout: 60_000 });
}

beforeAll(async () => {
  const scripts = await bundle();
  empty = await mkdtemp(join(tmpdir(), 'loopctl-opfs-'));
  server = await serveStatic(empty, {
    files: {
      '/index.html':
        '<!doctype html><meta charset="utf-8"><title>OPFS file tools</title><script type="module" src="/opfs-page.js"></script>',
      ...scripts,
    },
  });
  browser = await launch();
  page = await browser.newPage();
  await openPage();
});

afterEach(() => {
  expect(browser.external, 'requests outside 127.0.0.1').toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (empty) await rm(empty, { recursive: true, force: true });
});

describe('file tools on the opfs backend (Chromium)', () => {
  it('the page holds the same case table', async () => {
    const names = await page.evaluate(() => (window as unknown as { __opfsCases: PageHook }).__opfsCases.names);
    expect(names).toEqual(FILE_CASES.map((fileCase) => fileCase.name));
  });

  it.for(FILE_CASES)('$name', async (fileCase, context) => {
    const report = await page.evaluate(
      (name) => (window as unknown as { __opfsCases: PageHook }).__opfsCases.run(name),
      fileCase.name,
    );
    if (report.outcome === 'skipped') context.skip('OPFS has no symbolic links');
    expect(report.error ?? '', `${fileCase.name} in the page`).toBe('');
    expect(report.outcome).toBe('passed');
  });

  it('the default root (navigator.storage.getDirectory()) persists across a reload', async () => {
    const call = (tool: string, args: Record<string, unknown>) =>
      page.evaluate(
        ([name, input]) => (window as unknown as { __opfsCases: PageHook }).__opfsCases.callOnDefaultRoot(name, input),
        [tool, args] as const,
      );
    expect(await call('Write', { path: 'notes/persist.md', content: '# Kept\nacross reloads\n' })).toEqual({
      isError: false,
      content: 'Created notes/persist.md: 22 bytes.',
    });
    await openPage();
    expect(await call('Read', { path: 'notes/persist.md' })).toEqual({
      isError: false,
      content: '     1→# Kept\n     2→across reloads',
    });
    expect(await call('Grep', { pattern: 'reloads', glob: '*.md' })).toEqual({
      isError: false,
      content: 'notes/persist.md:2:across reloads',
    });
    expect(await call('Glob', { pattern: '**/*.md' })).toEqual({ isError: false, content: 'notes/persist.md' });
    expect((await call('Read', { path: '../escape' })).content).toMatch(/path escapes the root/);
  });
});
