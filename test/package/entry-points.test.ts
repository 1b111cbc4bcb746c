/**
 * The public surface: every subpath in package.json's `exports` is one source entry, each
 * exported name has exactly one home among them (no subpath re-exports another's names), and
 * the root stays what a user of the loop needs.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as {
  exports: Record<string, string | { types: string; import: string }>;
};

/** Subpath → its source entry (from the declared types: dist/types/X.d.ts is src/X.ts). */
const entries: [string, string][] = Object.entries(pkg.exports)
  .filter((entry): entry is [string, { types: string; import: string }] => typeof entry[1] === 'object')
  .map(([subpath, target]) => [subpath, target.types.replace(/^\.\/dist\/types\//, 'src/').replace(/\.d\.ts$/, '.ts')]);

/** The names a source entry exports, read from its text: re-export lists and declarations. */
function exportedNames(file: string): string[] {
  const text = readFileSync(`${root}${file}`, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  if (/^export \*/m.test(text)) throw new Error(`${file} has an export * (its names cannot be listed)`);
  const names: string[] = [];
  for (const [, list] of text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const item of (list as string).split(',')) {
      const name = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .at(-1);
      if (name) names.push(name);
    }
  }
  for (const [, name] of text.matchAll(
    /^export (?:declare )?(?:async )?(?:abstract )?(?:function\*?|class|const|let|interface|type|enum) ([A-Za-z_$][\w$]*)/gm,
  )) {
    names.push(name as string);
  }
  return names;
}

describe('entry points', () => {
  it('give every exported name exactly one home', () => {
    const homes = new Map<string, string[]>();
    for (const [subpath, file] of entries) {
      for (const name of new Set(exportedNames(file))) homes.set(name, [...(homes.get(name) ?? []), subpath]);
    }
    const shared = [...homes]
      .filter(([, where]) => where.length > 1)
      .map(([name, where]) => `${name}: ${where.join(', ')}`);
    expect(shared).toEqual([]);
    expect(homes.size).toBeGreaterThan(100); // the reading found the entries' names
  });

  it('keep the root to what a user of the loop needs: at most 20 runtime values', async () => {
    const values = Object.keys(await import('../../src/index.js')).sort();
    expect(values.length).toBeLessThanOrEqual(20);
    for (const name of ['BareLoop', 'ToolRegistry', 'KeywordSelector', 'HybridSelector', 'openAIChatClient'])
      expect(values).toContain(name);
    // Internals and authoring helpers live at loopctl/selector-kit, or nowhere.
    for (const name of ['runSelection', 'HYBRID_DEFAULTS', 'namedSelectors', 'toolsCost'])
      expect(values).not.toContain(name);
  });

  it('read as the entries themselves export (the runtime values match the text)', async () => {
    for (const subpath of ['.', './selector-kit', './vectors']) {
      const file = entries.find(([name]) => name === subpath)?.[1] as string;
      const module = (await import(/* @vite-ignore */ `${root}${file}`)) as Record<string, unknown>;
      const listed = new Set(exportedNames(file));
      for (const name of Object.keys(module)) expect(listed, `${subpath} exports ${name}`).toContain(name);
    }
  });
});
