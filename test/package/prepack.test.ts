/**
 * `npm ci && npm pack` in a fresh clone (no dist/ yet) must ship the library: `prepack` builds it.
 * Runs in a copy of the package's sources (dist/ absent) so the shared dist/ the other tests read
 * is never removed under them; node_modules and the built model are linked, not copied.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs shared with scripts/consumer-check.mjs (no declarations)
import { packedFileProblems } from '../../scripts/packed-files.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = (await import('../../package.json', { with: { type: 'json' } })).default;
const work = mkdtempSync(join(tmpdir(), 'loopctl-prepack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack from a clean checkout', () => {
  it('builds dist/ first (prepack), so the tarball holds the library', () => {
    const clone = join(work, 'loopctl');
    // What a clone holds that the build reads; timestamps kept so the model counts as up to date.
    for (const path of [
      'package.json',
      'README.md',
      'LICENSE',
      'vite.config.ts',
      'tsconfig.json',
      'tsconfig.build.json',
      'src',
      'bin',
      'scripts',
    ]) {
      cpSync(join(root, path), join(clone, path), { recursive: true, preserveTimestamps: true });
    }
    symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');
    if (existsSync(join(root, 'models')))
      cpSync(join(root, 'models'), join(clone, 'models'), { recursive: true, preserveTimestamps: true });
    expect(existsSync(join(clone, 'dist'))).toBe(false);

    // npm prints the lifecycle scripts' output before the JSON report.
    const output = execFileSync('npm', ['pack', '--dry-run', '--json'], {
      cwd: clone,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 600_000,
    });
    const [report] = JSON.parse(output.slice(output.indexOf('\n[') + 1));
    const paths: string[] = report.files.map((file: { path: string }) => file.path);
    expect(packedFileProblems(paths, pkg)).toEqual([]);
    for (const file of ['dist/index.js', 'dist/cli.js', 'dist/hono-node.js', 'dist/types/index.d.ts']) {
      expect(paths).toContain(file);
    }
  }, 900_000);
});
