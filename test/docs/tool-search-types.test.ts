/**
 * docs/tool-search.md's snippets type-check as a user would write them: each snippet, as
 * written, in a TypeScript project outside the repository that installs loopctl (the checkout,
 * linked as `node_modules/loopctl`, so the built declarations: run `npm run build` first) beside
 * the real SDKs. The names a snippet takes as given (`selector`, `registry`, `model`, …) are
 * declared with the types a user would have.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs shared with scripts/consumer-check.mjs (no declarations)
import { NODE_ONLY_OPTIONS, typecheck } from '../../scripts/node-types-project.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsc = join(root, 'node_modules/.bin/tsc');
const page = readFileSync(join(root, 'docs/tool-search.md'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'loopctl-doc-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PACKAGES = [
  'ai',
  '@ai-sdk/openai',
  '@anthropic-ai/sdk',
  'openai',
  '@openai/agents',
  '@openai/agents-openai',
  '@google/genai',
  '@types/node',
];
const LOOPCTL_TYPES =
  "import type { AsyncToolSelector as GivenSelector, ToolRegistry as GivenRegistry } from 'loopctl'";

/** What each snippet takes as given, by the heading it sits under (the first words are enough). */
const GIVEN: [string, string][] = [
  ['The loop in deferred mode', 'declare const apiKey: string\ndeclare const registry: GivenRegistry'],
  ['Vercel AI SDK', "declare const model: import('ai').LanguageModel"],
  [
    'Anthropic',
    'declare const allTools: Anthropic.Tool[]\ndeclare function callTool(name: string, input: unknown): Promise<string>',
  ],
  [
    'OpenAI Responses',
    'declare const functionTools: OpenAI.Responses.FunctionTool[]\ndeclare function callTool(name: string, input: unknown): Promise<string>',
  ],
  ['OpenAI Agents SDK', ''],
  [
    'Gemini',
    'declare const model: string\ndeclare const functionTools: Interactions.Function[]\ndeclare function callTool(name: string, input: unknown): Promise<string>',
  ],
];

/** The page's `ts` snippets with the heading above each. */
function snippets(markdown: string): { heading: string; code: string }[] {
  const found: { heading: string; code: string }[] = [];
  let heading = '';
  for (const [index, text] of markdown.split(/^```/m).entries()) {
    if (index % 2 === 0) {
      const last = [...text.matchAll(/^#+ (.*)$/gm)].at(-1)?.[1];
      if (last !== undefined) heading = last.trim();
    } else if (text.startsWith('ts\n')) found.push({ heading, code: text.slice(3) });
  }
  return found;
}

describe('docs/tool-search.md snippets, type-checked', () => {
  it('compile against the built declarations and the real SDK types', () => {
    mkdirSync(join(dir, 'node_modules/@types'), { recursive: true });
    for (const name of PACKAGES) {
      mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
      symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
    }
    symlinkSync(root, join(dir, 'node_modules/loopctl'), 'dir');
    const files = snippets(page).map(({ heading, code }, i) => {
      const given = GIVEN.find(([prefix]) => heading.startsWith(prefix));
      if (!given) throw new Error(`no given names for the snippet under "${heading}"`);
      const file = `snippet-${i}.ts`;
      // Imports first (the snippet's own), then what it takes as given, then its code.
      const lines = code.split('\n');
      const imports = lines.filter((line) => line.startsWith('import '));
      const rest = lines.filter((line) => !line.startsWith('import '));
      writeFileSync(
        join(dir, file),
        [...imports, LOOPCTL_TYPES, 'declare const selector: GivenSelector', given[1], ...rest, 'export {}', ''].join(
          '\n',
        ),
      );
      return file;
    });
    expect(files).toHaveLength(7);
    writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
    // The SDKs' own declarations are theirs to check; the snippets are ours.
    const options = { ...NODE_ONLY_OPTIONS, lib: ['es2023', 'dom'], skipLibCheck: true };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files }, null, 2));
    const { ok, output } = typecheck(dir, tsc);
    expect(output).toBe('');
    expect(ok).toBe(true);
  });
});
