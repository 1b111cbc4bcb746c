#!/usr/bin/env node
// Render the Configuration tables of docs/worker.md and docs/proxy.md from the settings'
// declarations (src/hono/settings.ts, through test/hono/settings-table.ts), so a published
// default, bound or doc line cannot drift from the one the code reads.
// `--check` exits 1 instead of writing when a table is stale (for CI).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { runnerImport } from 'vite';

const root = resolve(import.meta.dirname, '..');
// Vite's module runner loads the TypeScript directly: no build step, no extra tool.
const { module } = await runnerImport(resolve(root, 'test/hono/settings-table.ts'), {
  root,
  configFile: false,
  logLevel: 'error',
});

let stale = false;
for (const [doc, path] of Object.entries(module.SETTINGS_DOCS)) {
  const file = resolve(root, path);
  const current = readFileSync(file, 'utf8');
  const text = module.spliceSettingsTable(current, doc);
  if (text === current) continue;
  if (process.argv.includes('--check')) {
    console.error(`${path}: its settings table is stale: run node scripts/settings-doc.mjs`);
    stale = true;
  } else {
    writeFileSync(file, text);
    console.log(`wrote ${path}`);
  }
}
if (stale) process.exit(1);
