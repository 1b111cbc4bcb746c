/**
 * `loopctl/mcp` in real Chromium: bundled with Vite for the browser (the stdio transport's
 * `node:child_process` is never pulled in), it loads, and a stdio mount is refused with an
 * error that says what to do. Run with the e2e config:
 *
 *   npx vitest run -c vitest.e2e.config.ts test/e2e/mcp-stdio.test.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { afterAll, expect, it } from 'vitest';
import { type Launched, launch } from './browser.js';
import { type StaticServer, serveStatic } from './serve.js';

const ENTRY = fileURLToPath(new URL('./mcp-stdio-page.ts', import.meta.url));

let empty: string | undefined;
let server: StaticServer | undefined;
let browser: Launched | undefined;

/** Every chunk of the page bundle, by URL path. */
async function bundle(): Promise<Record<string, string>> {
  const output = await build({
    configFile: false,
    logLevel: 'warn',
    build: {
      write: false,
      target: 'es2022',
      minify: false,
      sourcemap: false,
      lib: { entry: ENTRY, formats: ['es'], fileName: 'mcp-stdio-page' },
    },
  });
  type Item = { type: string; fileName: string; code?: string };
  const results = (Array.isArray(output) ? output : [output]) as { output: Item[] }[];
  const chunks = results
    .flatMap((result) => result.output)
    .filter((item) => item.type === 'chunk' && typeof item.code === 'string');
  return Object.fromEntries(chunks.map((chunk) => [`/${chunk.fileName}`, chunk.code as string]));
}

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (empty) await rm(empty, { recursive: true, force: true });
});

it('a stdio mount in the browser rejects with "stdio needs Node or Deno"; the registry is untouched', async () => {
  const files = await bundle();
  expect(Object.values(files).some((code) => code.includes('child_process'))).toBe(true); // present, behind a lazy import
  empty = await mkdtemp(join(tmpdir(), 'loopctl-mcp-page-'));
  server = await serveStatic(empty, {
    files: {
      '/index.html':
        '<!doctype html><meta charset="utf-8"><title>mcp stdio</title><script type="module" src="/mcp-stdio-page.js"></script>',
      ...files,
    },
  });
  browser = await launch();
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.url}index.html`);
  await page.waitForFunction(() => '__mcpStdio' in window, undefined, { timeout: 60_000 });
  const outcome = await page.evaluate(() =>
    (window as unknown as { __mcpStdio: () => Promise<{ message: string; registered: number }> }).__mcpStdio(),
  );
  expect(outcome).toEqual({
    message:
      'mountMcp: stdio MCP servers need Node or Deno (this runtime cannot start processes); mount this server over Streamable HTTP (url) instead',
    registered: 0,
  });
  expect(errors).toEqual([]);
  expect(browser.external, 'requests outside 127.0.0.1').toEqual([]);
});
