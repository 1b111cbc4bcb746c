/**
 * loopctl is ESM only. A CommonJS `require('loopctl')` (or of any subpath) must fail with an error
 * that says so and what to write instead, not Node's "No "exports" main defined", which reads
 * as a broken package. Runs real `node` against the package linked into a temp project, as npm
 * links a `file:` dependency.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'loopctl-esm-only-'));
mkdirSync(join(work, 'node_modules'));
symlinkSync(root, join(work, 'node_modules', 'loopctl'), 'dir');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Run a CommonJS script in the temp project; what it printed. */
function runCjs(code: string): string {
  writeFileSync(join(work, 'script.cjs'), code);
  const result = spawnSync(process.execPath, ['script.cjs'], { cwd: work, encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`.trim();
}

describe('loopctl is ESM only', () => {
  it.each(['loopctl', 'loopctl/hono', 'loopctl/use-lite'])(
    "require('%s') throws an error that says ESM only and how to import it",
    (specifier) => {
      const printed = runCjs(
        `try { require(${JSON.stringify(specifier)}); console.log('loaded') } catch (error) { console.log(error.message) }\n`,
      );
      expect(printed).toContain("loopctl is ESM-only: use import … from 'loopctl' or await import('loopctl')");
      expect(printed).not.toMatch(/No "exports" main defined|is not defined by "exports"/);
    },
  );

  it('import() from CommonJS still loads the package', () => {
    const printed = runCjs(
      "import('loopctl').then((loopctl) => console.log(typeof loopctl.ToolRegistry), (error) => console.log(error.message))\n",
    );
    expect(printed).toBe('function');
  });
});
