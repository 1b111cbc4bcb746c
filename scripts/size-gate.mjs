#!/usr/bin/env node
// The size gate: the core bundle (dist/index.js) must stay within its gzip budget, so a
// browser app that imports loopctl pays little. Run after `npm run build`.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET = 25 * 1024; // bytes, gzip
const file = new URL('../dist/index.js', import.meta.url);
const size = gzipSync(readFileSync(file)).byteLength;
const line = `dist/index.js: ${(size / 1024).toFixed(1)} KB gzip (budget ${BUDGET / 1024} KB)`;
if (size > BUDGET) {
  console.error(`size gate failed: ${line}`);
  process.exit(1);
}
console.log(`size gate ok: ${line}`);
