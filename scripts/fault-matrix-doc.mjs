#!/usr/bin/env node
// Render docs/fault-matrix.md from the table the fault-matrix test drives
// (test/select/fault-table.ts), so the published table cannot drift from the tested one.
// `--check` exits 1 instead of writing when the file is stale (for CI).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { runnerImport } from 'vite';

const root = resolve(import.meta.dirname, '..');
const out = resolve(root, 'docs/fault-matrix.md');
// Vite's module runner loads the TypeScript table directly: no build step, no extra tool.
const { module } = await runnerImport(resolve(root, 'test/select/fault-table.ts'), {
  root,
  configFile: false,
  logLevel: 'error',
});
const text = module.renderFaultMatrix();

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(out, 'utf8');
  } catch {
    // A missing file is stale too.
  }
  if (current !== text) {
    console.error('docs/fault-matrix.md is stale: run node scripts/fault-matrix-doc.mjs');
    process.exit(1);
  }
  console.log('docs/fault-matrix.md is current');
} else {
  writeFileSync(out, text);
  console.log(`wrote ${out}`);
}
