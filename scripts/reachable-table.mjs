// The reachable-recall table, written the same way into docs/benchmarks.md and, between its
// markers, into docs/tool-search.md (the "Tool search" page), so the two never disagree.
import { readFileSync, writeFileSync } from 'node:fs';

export const START = '<!-- reachable-recall: written by npm run eval -->';
export const END = '<!-- /reachable-recall -->';

/** The markdown table of `rows` (benchmarks.json's `kind: 'reachable'` rows), one line per set and search. */
export function reachableTable(rows) {
  let md = `| set | cases | loaded only | search | search alone | reachable |\n| --- | --- | --- | --- | --- | --- |\n`;
  for (const r of rows)
    md += `| ${r.set} | ${r.cases} | ${r.loadedOnly.toFixed(3)} | ${r.method} | ${r.searchOnly.toFixed(3)} | ${r.reachable.toFixed(3)} |\n`;
  return md;
}

/** Replace the marked table in `file` with `rows`' table; a file without the markers is left alone. */
export function writeReachableSection(file, rows) {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) return false;
  writeFileSync(file, `${text.slice(0, start + START.length)}\n${reachableTable(rows)}${text.slice(end)}`);
  return true;
}
