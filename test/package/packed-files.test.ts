/**
 * The tarball is the library alone, whatever was built locally: run after `npm run build` and
 * `npm run build:demo` (as `npm test` does), it must still hold no demo page, model, runtime or
 * source file, and every path package.json points at must be in it.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs shared with scripts/consumer-check.mjs (no declarations)
import { ALLOWED, declaredFiles, packDryRun, packedFileProblems } from '../../scripts/packed-files.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = (await import('../../package.json', { with: { type: 'json' } })).default;

describe('npm pack', () => {
  it('ships only dist/*.js(.map), dist/types/**/*.d.ts, bin, README, LICENSE and package.json', () => {
    const { files } = packDryRun(root);
    const paths: string[] = files.map((f: { path: string }) => f.path);
    expect(packedFileProblems(paths, pkg)).toEqual([]);
    expect(paths.filter((p) => /\.(ts|tsx|html|css|onnx|wasm)$/.test(p) && !p.endsWith('.d.ts'))).toEqual([]);
    for (const required of [
      'package.json',
      'README.md',
      'LICENSE',
      'bin/loopctl.mjs',
      'dist/index.js',
      'dist/cli.js',
    ]) {
      expect(paths).toContain(required);
    }
    // The tuned encoder's delta stays in the repository (loopctl model --delta FILE): not the library.
    expect(paths.filter((p) => p.startsWith('assets/'))).toEqual([]);
    // The tool-search adapters, one small entry per SDK, and the Responses client.
    for (const entry of ['ai-sdk', 'anthropic', 'openai', 'openai-agents', 'openai-responses', 'gemini']) {
      expect(paths).toContain(`dist/${entry}.js`);
      expect(paths).toContain(
        `dist/types/adapters/${['anthropic', 'openai', 'gemini'].includes(entry) ? `${entry}-tool-search` : entry}.d.ts`,
      );
    }
  });

  it('leaves out stray files that land in dist/ (a demo build, a model copy, copied sources)', () => {
    const strays = [
      'dist/public/index.html',
      'dist/models/use-lite/onnx/model_quantized.onnx',
      'dist/chat.ts',
      'dist/style.css',
      'dist/ort/ort.wasm',
    ];
    try {
      for (const stray of strays) {
        mkdirSync(join(root, stray, '..'), { recursive: true });
        writeFileSync(join(root, stray), 'stray');
      }
      const paths: string[] = packDryRun(root).files.map((f: { path: string }) => f.path);
      for (const stray of strays) expect(paths).not.toContain(stray);
    } finally {
      for (const stray of strays) rmSync(join(root, stray), { force: true });
      for (const dir of ['dist/public', 'dist/models', 'dist/ort'])
        rmSync(join(root, dir), { recursive: true, force: true });
    }
  });

  it('the check itself flags what must not ship and what is missing', () => {
    const problems = packedFileProblems(
      ['package.json', 'dist/index.js', 'dist/public/index.html', 'dist/engine.ts', 'dist/models/a.onnx'],
      {
        main: './dist/index.js',
        exports: { '.': { types: './dist/types/index.d.ts', import: './dist/index.js' } },
      },
    );
    expect(problems).toEqual([
      'ships dist/public/index.html, which is not library output',
      'ships dist/engine.ts, which is not library output',
      'ships dist/models/a.onnx, which is not library output',
      'package.json points at dist/types/index.d.ts, which is not packed',
    ]);
    expect(ALLOWED.some((re: RegExp) => re.test('dist/types/adapters/mcp/index.d.ts'))).toBe(true);
    expect(declaredFiles(pkg)).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/types/index.d.ts', 'bin/loopctl.mjs']),
    );
  });
});
