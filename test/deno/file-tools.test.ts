/**
 * The file-tool case table (test/file-tools/file-cases.ts) on `denoFileSystem`: a temporary
 * `root/` beside an `outside/` holding the secret, with symbolic links from one into the
 * other. Run from the repo root:
 *
 *   npx deno test --config test/deno/file-tools.deno.json --allow-read --allow-write --allow-env --cached-only --no-remote test/deno/file-tools.test.ts
 */
import { denoFileSystem } from '../../src/file-tools/deno-file-system.js';
import { memoryFileSystem } from '../../src/file-tools/file-tools.js';
import { type Backend, FILE_CASES, LINKS, runFileCase, SECRET } from '../file-tools/file-cases.js';

const deno: Backend = {
  name: 'deno',
  async create() {
    const base = await Deno.makeTempDir({ prefix: 'loopctl-files-' });
    const root = `${base}/root`;
    const outside = `${base}/outside`;
    await Deno.mkdir(root);
    await Deno.mkdir(outside);
    await Deno.writeTextFile(`${outside}/secret.txt`, SECRET);
    await Deno.symlink(outside, `${root}/${LINKS.dir}`);
    await Deno.symlink(`${outside}/secret.txt`, `${root}/${LINKS.file}`);
    await Deno.symlink(`${outside}/${LINKS.danglingTarget}`, `${root}/${LINKS.dangling}`);
    await Deno.symlink('README.md', `${root}/${LINKS.inside}`);
    return {
      fs: denoFileSystem(root),
      outside: { read: (name: string) => Deno.readTextFile(`${outside}/${name}`).catch(() => undefined) },
      dispose: () => Deno.remove(base, { recursive: true }),
    };
  },
};

// The memory backend too, so the table is known to run the same under Deno's runtime.
const memory: Backend = { name: 'memory', create: async () => ({ fs: memoryFileSystem() }) };

for (const backend of [deno, memory]) {
  for (const fileCase of FILE_CASES) {
    Deno.test({
      name: `${backend.name}: ${fileCase.name}`,
      ignore: backend.name === 'memory' && fileCase.needs === 'symlinks',
      fn: async () => {
        await runFileCase(fileCase, backend);
      },
    });
  }
}

Deno.test('deno: a root given as a file URL works', async () => {
  const base = await Deno.makeTempDir({ prefix: 'loopctl-files-' });
  try {
    await Deno.writeTextFile(`${base}/a.txt`, 'A');
    const fs = denoFileSystem(new URL(`file://${base}/`));
    const text = new TextDecoder().decode(await fs.readFile('a.txt'));
    if (text !== 'A') throw new Error(`read ${JSON.stringify(text)}`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
