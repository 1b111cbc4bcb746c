#!/usr/bin/env node
// The size gate: what `import 'loopctl'` loads up front (dist/index.js and every chunk it
// imports statically, gzipped together) must stay within its budget, so a browser app that
// imports loopctl pays little. Chunks behind `import()` load on first use and are not counted.
// Run after `npm run build`.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { staticGraph } from './static-graph.mjs';

const BUDGET = 25 * 1024; // bytes, gzip
const dist = new URL('../dist/', import.meta.url);
const files = staticGraph(dist, 'index.js');
const size = gzipSync(Buffer.concat(files.map((file) => readFileSync(new URL(file, dist))))).byteLength;
const line = `dist/index.js + ${files.length - 1} static chunk(s): ${(size / 1024).toFixed(1)} KB gzip (budget ${BUDGET / 1024} KB)`;
if (size > BUDGET) {
  console.error(`size gate failed: ${line}\n  ${files.join('\n  ')}`);
  process.exit(1);
}
console.log(`size gate ok: ${line}`);
