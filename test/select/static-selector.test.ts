import { describe, expect, it } from 'vitest';
import type { ToolSchema } from '../../src/registry/schema.js';
import { applySelection } from '../../src/select/apply-selection.js';
import type { SelectionContext } from '../../src/select/selector.js';
import { StaticSelector } from '../../src/select/static-selector.js';

const all: readonly ToolSchema[] = ['read_file', 'grep', 'get_weather', 'send_email'].map((name) => ({
  name,
  description: `The ${name} tool.`,
  parameters: {},
}));
const ctx = (prompt: string): SelectionContext => ({ turn: 1, latestUserMessage: prompt, conversation: [] });

describe('StaticSelector', () => {
  it('with no names advertises every tool, whatever the prompt', () => {
    const selector = new StaticSelector();
    expect(selector.select(ctx('weather'), all).tools).toEqual(all);
    expect(selector.select(ctx(''), all).tools).toEqual(all);
    expect(selector.select(ctx('weather'), all).fellOpen).toBeUndefined();
  });

  it('with names advertises exactly that subset, in registry order, whatever the prompt', () => {
    const selector = new StaticSelector(['send_email', 'read_file']);
    for (const prompt of ['weather', 'grep for a file', '']) {
      expect(selector.select(ctx(prompt), all).tools.map((t) => t.name)).toEqual(['read_file', 'send_email']);
    }
  });

  it('ignores names that are not registered', () => {
    expect(new StaticSelector(['grep', 'ghost']).select(ctx('x'), all).tools.map((t) => t.name)).toEqual(['grep']);
  });

  it('an empty subset advertises nothing, and the contract keeps it empty', () => {
    const output = new StaticSelector([]).select(ctx('weather'), all);
    expect(output.tools).toEqual([]);
    expect(applySelection(output, all).tools).toEqual([]);
  });

  it('returns members of the list it was handed', () => {
    const selection = applySelection(new StaticSelector(['grep']).select(ctx('x'), all), all);
    expect(selection.tools[0]).toBe(all[1]);
    expect(selection.dropped).toEqual([]);
  });
});
