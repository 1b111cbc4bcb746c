/**
 * Types that work everywhere: a Node-only project (no DOM lib, skipLibCheck off, nodenext)
 * type-checks every public subpath of the built declarations. The project lives outside the
 * repository and links the checkout in as `node_modules/loopctl`.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs shared with scripts/consumer-check.mjs (no declarations)
import { typecheck, writeNodeTypesProject } from '../../scripts/node-types-project.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = (await import('../../package.json', { with: { type: 'json' } })).default;
const tsc = join(root, 'node_modules/.bin/tsc');
const dir = mkdtempSync(join(tmpdir(), 'loopctl-node-types-'));
mkdirSync(join(dir, 'node_modules/@types'), { recursive: true });
symlinkSync(root, join(dir, 'node_modules/loopctl'), 'dir');
symlinkSync(join(root, 'node_modules/@types/node'), join(dir, 'node_modules/@types/node'), 'dir');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the published declarations in a Node-only project', () => {
  it('type-check for every subpath in package.json exports', () => {
    const specifiers: string[] = writeNodeTypesProject(dir, pkg);
    expect(specifiers).toEqual(expect.arrayContaining(['loopctl', 'loopctl/tools', 'loopctl/mcp']));
    expect(specifiers).toHaveLength(Object.keys(pkg.exports).length - 1);
    const { ok, output } = typecheck(dir, tsc);
    expect(output).toBe('');
    expect(ok).toBe(true);
  });

  it('the project really has no DOM: a DOM-only name fails it', () => {
    writeNodeTypesProject(dir, pkg, { extra: 'export let handle: FileSystemDirectoryHandle | undefined;' });
    const { ok, output } = typecheck(dir, tsc);
    expect(ok).toBe(false);
    expect(output).toContain("Cannot find name 'FileSystemDirectoryHandle'");
  });
});
