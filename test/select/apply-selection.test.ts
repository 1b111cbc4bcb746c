import { describe, expect, it } from 'vitest';
import type { ToolSchema } from '../../src/registry/schema.js';
import { applySelection, withCore } from '../../src/select/apply-selection.js';

const tool = (name: string, description = `The ${name} tool.`): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
});

const all: readonly ToolSchema[] = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((name) => tool(name));
const [alpha, bravo, charlie, delta, echo] = all as [ToolSchema, ToolSchema, ToolSchema, ToolSchema, ToolSchema];

describe('applySelection', () => {
  it('keeps members of all, in registry order whatever order the selector returned', () => {
    const selection = applySelection([echo, alpha, charlie], all);
    expect(selection.names).toEqual(['alpha', 'charlie', 'echo']);
    expect(selection.tools).toEqual([alpha, charlie, echo]);
    expect(selection.tools[0]).toBe(alpha); // the registry's own objects are advertised
    expect(selection.dropped).toEqual([]);
    expect(selection.warnings).toEqual([]);
    expect(selection.fellOpen).toBeUndefined();
  });

  // A frozen list of frozen schemas keeps its name map between turns; anything else may change
  // in place, so each turn reads it afresh.
  it('a list that changed in place since the last turn is read as it is now', () => {
    const list = [tool('one'), tool('two')];
    expect(applySelection([list[1] as ToolSchema], list).names).toEqual(['two']);
    list.reverse();
    (list[1] as { name: string }).name = 'uno';
    expect(applySelection([list[0] as ToolSchema, list[1] as ToolSchema], list).tools).toEqual([list[0], list[1]]);
    const frozen = Object.freeze([tool('three'), tool('four')]);
    expect(applySelection([frozen[1] as ToolSchema], frozen).names).toEqual(['four']);
    (frozen[1] as { name: string }).name = 'cuatro';
    expect(applySelection([frozen[1] as ToolSchema], frozen).names).toEqual(['cuatro']);
  });

  it('a frozen list of frozen schemas gives the same selection turn after turn', () => {
    const frozen = Object.freeze(['a', 'b', 'c'].map((name) => Object.freeze(tool(name))));
    for (let turn = 0; turn < 3; turn++) {
      const selection = applySelection([frozen[2] as ToolSchema, frozen[0] as ToolSchema, tool('zz')], frozen);
      expect(selection.names).toEqual(['a', 'c']);
      expect(selection.dropped).toEqual(['zz']);
    }
  });

  it('accepts a structurally equal copy of a member (same name, description, parameters)', () => {
    const copy = { ...bravo, parameters: structuredClone(bravo.parameters) };
    const selection = applySelection([copy], all);
    expect(selection.names).toEqual(['bravo']);
    expect(selection.tools[0]).toBe(bravo);
  });

  it('drops a fabricated schema with an unknown name, reporting it in dropped and warnings', () => {
    const selection = applySelection([bravo, tool('launch_missiles')], all);
    expect(selection.names).toEqual(['bravo']);
    expect(selection.dropped).toEqual(['launch_missiles']);
    expect(selection.warnings.some((w) => w.includes('launch_missiles'))).toBe(true);
  });

  it('drops a fabricated schema that reuses a registered name with a different description', () => {
    const forged = { ...charlie, description: 'Something charlie never said.' };
    const selection = applySelection([alpha, forged], all);
    expect(selection.names).toEqual(['alpha']);
    expect(selection.tools).not.toContain(forged);
    expect(selection.dropped).toEqual(['charlie']);
    expect(selection.warnings.join('\n')).toContain('charlie');
  });

  it('drops a schema that reuses a registered name with different parameters', () => {
    const forged = { ...delta, parameters: { type: 'object', properties: { cmd: { type: 'string' } } } };
    const selection = applySelection([forged], all);
    expect(selection.tools).toEqual([]);
    expect(selection.dropped).toEqual(['delta']);
  });

  it('a forged twin never displaces the real member when both are returned', () => {
    const forged = { ...charlie, description: 'Forged.' };
    const selection = applySelection([forged, charlie], all);
    expect(selection.tools).toEqual([charlie]);
    expect(selection.tools[0]?.description).toBe(charlie.description);
    expect(selection.dropped).toEqual(['charlie']);
  });

  it('collapses duplicates', () => {
    const selection = applySelection([delta, alpha, delta, { ...delta }, alpha], all);
    expect(selection.names).toEqual(['alpha', 'delta']);
  });

  it('an empty selection stays empty, with no warning and no fall-open', () => {
    const selection = applySelection([], all);
    expect(selection.tools).toEqual([]);
    expect(selection.names).toEqual([]);
    expect(selection.fellOpen).toBeUndefined();
    expect(selection.warnings).toEqual([]);
    expect(applySelection({ tools: [] }, all).tools).toEqual([]);
  });

  it('an all-fabricated selection is empty, not the full surface', () => {
    const selection = applySelection([tool('ghost')], all);
    expect(selection.tools).toEqual([]);
    expect(selection.dropped).toEqual(['ghost']);
  });

  it('keeps reasons for advertised tools only', () => {
    const forged = { ...echo, description: 'Forged.' };
    const selection = applySelection(
      {
        tools: [alpha, forged],
        reasons: { alpha: { score: 2, matched: ['alpha'] }, echo: { score: 9 }, bravo: { core: true } },
      },
      all,
    );
    expect(selection.reasons).toEqual({ alpha: { score: 2, matched: ['alpha'] } });
  });

  it('surfaces fellOpen as a warning and keeps the reason', () => {
    const selection = applySelection({ tools: all, fellOpen: 'no tool matched the prompt' }, all);
    expect(selection.tools).toEqual(all);
    expect(selection.fellOpen).toBe('no tool matched the prompt');
    expect(selection.warnings).toHaveLength(1);
    expect(selection.warnings[0]).toContain('no tool matched the prompt');
  });

  it("passes the selector's own warnings through alongside its own", () => {
    const selection = applySelection({ tools: [alpha, tool('ghost')], warnings: ['ran lexical-only'] }, all);
    expect(selection.warnings[0]).toBe('ran lexical-only');
    expect(selection.warnings).toHaveLength(2);
    expect(selection.warnings[1]).toContain('ghost');
  });

  it('does not choke on junk entries a careless selector returns', () => {
    const selection = applySelection([alpha, null as never, undefined as never, 'bravo' as never], all);
    expect(selection.names).toEqual(['alpha']);
    expect(selection.dropped).toHaveLength(3);
  });
});

describe('withCore', () => {
  it('unions core tools into a non-empty selection, in registry order', () => {
    expect(withCore([delta], all, new Set(['alpha', 'echo'])).map((t) => t.name)).toEqual(['alpha', 'delta', 'echo']);
  });

  it('leaves an empty selection empty and ignores unknown core names', () => {
    expect(withCore([], all, new Set(['alpha']))).toEqual([]);
    expect(withCore([bravo], all, new Set(['nope'])).map((t) => t.name)).toEqual(['bravo']);
  });
});
