/**
 * Vitest global setup: the library build (dist/, bin's target, the packed files) is fresh before
 * any test file runs, once, so test files never rebuild it under each other's feet.
 * `npm test` builds first, so this only builds for targeted runs after a source change.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Newest modification time of any file under a folder. */
function newest(folder: string): number {
  let latest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export default function setup(): void {
  const stamp = join(root, 'dist/types/index.d.ts');
  const built = [join(root, 'dist/cli.js'), stamp].every(existsSync);
  const inputs = Math.max(newest(join(root, 'src')), statSync(join(root, 'vite.config.ts')).mtimeMs);
  if (built && Math.min(statSync(join(root, 'dist/cli.js')).mtimeMs, statSync(stamp).mtimeMs) >= inputs) return;
  execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'pipe',
  });
  execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'pipe' });
}
