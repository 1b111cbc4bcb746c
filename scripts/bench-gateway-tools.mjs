#!/usr/bin/env node
// A large tool list for scripts/bench-gateway.mjs, from the public sets' tools only (never their
// cases): every set's tools.json under --data (bfcl first, so its names stay as they are), then
// copies under a numbered namespace (`c2.math.factorial`) until --count tools. The copies
// keep their descriptions, so the list is as hard to rank as a real catalogue with near-duplicates.
//
//   node scripts/bench-gateway-tools.mjs --count 10000 --out /tmp/tools-10000.json
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '10000' },
    data: { type: 'string', default: resolve(import.meta.dirname, '../../shared/eval') },
    out: { type: 'string' },
  },
});
const count = Number(values.count);
if (!values.out || !Number.isInteger(count) || count < 1) {
  process.stderr.write('usage: node scripts/bench-gateway-tools.mjs --count N --out FILE [--data DIR]\n');
  process.exit(2);
}
const sets = readdirSync(values.data)
  .filter((name) => {
    try {
      readFileSync(join(values.data, name, 'tools.json'));
      return true;
    } catch {
      return false;
    }
  })
  .sort((a, b) => (a === 'bfcl' ? -1 : b === 'bfcl' ? 1 : a.localeCompare(b)));
const seen = new Set();
const base = [];
for (const set of sets) {
  const file = JSON.parse(readFileSync(join(values.data, set, 'tools.json'), 'utf8'));
  for (const tool of Array.isArray(file) ? file : file.tools)
    if (!seen.has(tool.name)) {
      seen.add(tool.name);
      base.push(tool);
    }
}
const tools = [];
const names = new Set();
for (let copy = 1; tools.length < count; copy++)
  for (const tool of base) {
    if (tools.length >= count) break;
    // Clipped to the 64 characters a tool name may have; a clipped name that clashes is skipped.
    const name = copy === 1 ? tool.name : `c${copy}.${tool.name}`.slice(0, 64);
    if (names.has(name)) continue;
    names.add(name);
    tools.push({ ...tool, name });
  }
writeFileSync(values.out, `${JSON.stringify(tools)}\n`);
process.stdout.write(`${values.out}: ${tools.length} tools (${base.length} distinct from ${sets.join(', ')})\n`);
