/**
 * The page script for test/e2e/opfs-file-tools.test.ts, bundled for the browser: the
 * file-tool case table on `opfsFileSystem`, each case in a fresh OPFS directory, driven from
 * the test through `window.__opfsCases`.
 */

import { opfsFileSystem, registerFileTools } from '../../src/file-tools/file-tools.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { type Backend, FILE_CASES, runFileCase } from '../file-tools/file-cases.js';

/** What a case run reports back to the test (plain JSON). */
export interface CaseReport {
  outcome: 'passed' | 'skipped' | 'failed';
  error?: string;
  ms: number;
}

let serial = 0;

/** Each case gets its own directory under the origin's OPFS root, removed afterwards. */
const opfs: Backend = {
  name: 'opfs',
  async create() {
    const top = await navigator.storage.getDirectory();
    const name = `loopctl-case-${Date.now()}-${serial++}`;
    const directory = await top.getDirectoryHandle(name, { create: true });
    return { fs: opfsFileSystem(directory), dispose: () => top.removeEntry(name, { recursive: true }) };
  },
};

async function run(name: string): Promise<CaseReport> {
  const started = performance.now();
  const fileCase = FILE_CASES.find((candidate) => candidate.name === name);
  if (!fileCase) return { outcome: 'failed', error: `no case named ${JSON.stringify(name)}`, ms: 0 };
  try {
    const outcome = await runFileCase(fileCase, opfs);
    return { outcome, ms: performance.now() - started };
  } catch (error) {
    const text = error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error);
    return { outcome: 'failed', error: text, ms: performance.now() - started };
  }
}

/** One tool call on the default root (`navigator.storage.getDirectory()`), for the reload test. */
async function callOnDefaultRoot(
  tool: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; content: string }> {
  const registry = new ToolRegistry();
  registerFileTools(registry, opfsFileSystem());
  const { isError, content } = await registry.dispatch({ id: 'page', name: tool, arguments: JSON.stringify(args) });
  return { isError, content };
}

(window as unknown as { __opfsCases: unknown }).__opfsCases = {
  names: FILE_CASES.map((fileCase) => fileCase.name),
  run,
  callOnDefaultRoot,
};
