/**
 * `npm install onnxruntime-node` runs an install script that only fetches CUDA binaries: it
 * fails where only the npm registry is reachable and is slow elsewhere, and loopctl uses the CPU
 * provider (whose binaries ship in the npm tarball). Every place that tells a user to install it
 * (README, docs, runtime messages) says to skip that script.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function files(dir: string, ending: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path, ending) : ending.test(entry.name) ? [path] : [];
  });
}

describe('installing onnxruntime-node', () => {
  it("the README's offline section gives the command with ONNXRUNTIME_NODE_INSTALL=skip, as a shell line", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('\n## Selecting by meaning, offline\n'),
      readme.indexOf('\n## ', readme.indexOf('\n## Selecting by meaning, offline\n') + 1),
    );
    const shellLines = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap(([, code]) =>
      (code as string).split('\n'),
    );
    expect(shellLines).toContain('ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node');
  });

  it('no README, doc or runtime message says npm install onnxruntime-node without it', () => {
    const sources = [
      join(root, 'README.md'),
      ...files(join(root, 'docs'), /\.md$/),
      ...files(join(root, 'src'), /\.ts$/),
      ...files(join(root, 'examples'), /\.(md|ts)$/),
    ];
    const bare: string[] = [];
    for (const file of sources) {
      for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
        for (const match of line.matchAll(/npm (?:install|i) [^`'")]*onnxruntime-node/g)) {
          if (!line.slice(0, match.index).endsWith('ONNXRUNTIME_NODE_INSTALL=skip '))
            bare.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
        }
      }
    }
    expect(bare).toEqual([]);
  });
});
