// The files an ES module entry loads up front: itself and every chunk it imports statically,
// transitively (chunks behind `import()` load on first use and are left out). Used by the size
// gate and the browser bench, so both count the same bytes.
import { readFileSync } from 'node:fs';

const STATIC_IMPORT = /(?:^|[;}\n])\s*(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["']\.\/([^"']+)["']/g;

/** File names (relative to `dir`, a folder URL) of `entry`'s static import graph, entry first. */
export function staticGraph(dir, entry) {
  const files = new Set();
  const visit = (file) => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(new URL(file, dir), 'utf8').matchAll(STATIC_IMPORT)) visit(match[1]);
  };
  visit(entry);
  return [...files];
}
