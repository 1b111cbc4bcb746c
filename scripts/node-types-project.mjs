/**
 * A Node-only TypeScript project that imports every public subpath of loopctl (read from
 * package.json `exports`, so new subpaths are checked without editing this file): `lib: es2022`
 * without the DOM, `types: ["node"]`, `module: nodenext`, `skipLibCheck: false`. Shared by
 * test/package/node-types.test.ts and scripts/consumer-check.mjs.
 *
 * @example
 * writeNodeTypesProject(dir, pkg);
 * const { ok, output } = typecheck(dir, 'node_modules/.bin/tsc');
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The compiler options of a project that knows nothing of browsers. */
export const NODE_ONLY_OPTIONS = Object.freeze({
  target: 'es2022',
  lib: ['es2022'],
  types: ['node'],
  module: 'nodenext',
  moduleResolution: 'nodenext',
  strict: true,
  skipLibCheck: false,
  noEmit: true,
});

/** `loopctl`, `loopctl/tools`, …: every import specifier `exports` offers (package.json aside). */
export function publicSubpaths(pkg) {
  return Object.keys(pkg.exports)
    .filter((key) => key !== './package.json')
    .map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`));
}

/** Writes tsconfig.json and check.ts (one namespace import per subpath, each used) into `dir`. */
export function writeNodeTypesProject(dir, pkg, { extra = '' } = {}) {
  const specifiers = publicSubpaths(pkg);
  const lines = specifiers.map((s, i) => `import * as m${i} from '${s}';`);
  lines.push(`export const modules = [${specifiers.map((_, i) => `m${i}`).join(', ')}];`, extra);
  writeFileSync(join(dir, 'check.ts'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    `${JSON.stringify({ compilerOptions: NODE_ONLY_OPTIONS, files: ['check.ts'] }, null, 2)}\n`,
  );
  if (!existsSync(join(dir, 'package.json')))
    writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
  return specifiers;
}

/** Runs `tsc -p dir`; `output` holds the compiler's messages. */
export function typecheck(dir, tsc) {
  const result = spawnSync(tsc, ['-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
}
