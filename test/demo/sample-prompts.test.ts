/**
 * The demo's sample prompts follow the registry on the page: the demo's own samples for the
 * demo registry, and prompts drawn from a user's tools (their descriptions, else their names)
 * once the user drops in a tools file, so no sample points at a tool the page no longer has.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_TOOLS } from '../../demo/demo-tools.js';
import { DEMO_SAMPLES, samplePrompts } from '../../public/sample-prompts.js';
import type { ToolSchema } from '../../src/registry/schema.js';

const tool = (name: string, description: string): ToolSchema => ({ name, description, parameters: { type: 'object' } });

describe('samplePrompts', () => {
  it('gives the demo samples for the demo registry', () => {
    expect(samplePrompts(DEMO_TOOLS, 'demo')).toEqual(DEMO_SAMPLES);
  });

  it("gives prompts from a dropped file's own tools, none from the demo's", () => {
    const tools = [
      tool('get_forecast', 'Weather forecast for a city for the coming days. Uses the national service.'),
      tool('send_invoice', 'Email an invoice to a customer.'),
      tool('search_flights', 'Find flights between two airports on a date'),
    ];
    const samples = samplePrompts(tools, 'file');
    expect(samples).toEqual([
      'weather forecast for a city for the coming days',
      'email an invoice to a customer',
      'find flights between two airports on a date',
    ]);
    for (const sample of samples) expect(DEMO_SAMPLES).not.toContain(sample);
  });

  it('spreads up to six samples over a long registry, one per tool, and falls back to the name', () => {
    const tools = Array.from({ length: 30 }, (_, i) => tool(`tool_${i}`, `Does thing number ${i}.`));
    tools[0] = tool('listOpenPullRequests', '');
    const samples = samplePrompts(tools, 'file');
    expect(samples).toHaveLength(6);
    expect(samples[0]).toBe('list open pull requests');
    expect(new Set(samples).size).toBe(6);
    expect(samples.at(-1)).toBe('does thing number 25');
  });

  it('keeps an acronym at the start, and cuts a long description at a word', () => {
    const samples = samplePrompts(
      [
        tool('get_url', 'URL of the current page.'),
        tool(
          'summarise',
          'Summarise a long document into a short abstract that keeps the key findings, the methods and every number that matters',
        ),
      ],
      'file',
    );
    expect(samples[0]).toBe('URL of the current page');
    expect(samples[1]?.length).toBeLessThanOrEqual(81);
    expect(samples[1]).toMatch(/^summarise a long document into a short abstract that keeps the key\b.*…$/);
  });
});
