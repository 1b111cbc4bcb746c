/**
 * Builds what the e2e suite drives: the demo page (`build/demo/`) and the extension
 * (`examples/extension/dist/`). Both builds take a few seconds; set E2E_SKIP_BUILD=1 to reuse
 * existing output.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('../..', import.meta.url));

export default async function setup(): Promise<void> {
  if (
    process.env.E2E_SKIP_BUILD === '1' &&
    existsSync(`${root}build/demo/index.html`) &&
    existsSync(`${root}examples/extension/dist/manifest.json`)
  ) {
    return;
  }
  await build({ configFile: `${root}vite.demo.config.ts`, logLevel: 'warn' });
  // A separate process: the extension build is a plain .mjs script with its own Vite config.
  execFileSync(process.execPath, [`${root}examples/extension/build.mjs`], { cwd: root, stdio: 'pipe' });
}
