import { describe, expect, it } from 'vitest';
import type { ToolSchema } from '../../src/registry/schema.js';
import { searchTools } from '../../src/select/search-tools.js';
import type { ToolSelector } from '../../src/select/selector.js';

const tools: ToolSchema[] = [
  { name: 'get_weather', description: 'Current weather and forecast for a city.', parameters: {} },
  { name: 'send_email', description: 'Send an email message to a recipient.', parameters: {} },
  { name: 'read_email', description: 'Read an email message from the inbox.', parameters: {} },
  { name: 'stock_price', description: 'Latest trading price of a stock ticker.', parameters: {} },
];

describe('searchTools', () => {
  it('ranks with BM25 when no selector is given, best first, skipping excluded tools', async () => {
    const hits = await searchTools('send an email', tools, { k: 2 });
    expect(hits.map((hit) => hit.name)).toEqual(['send_email', 'read_email']);
    expect(hits.every((hit) => hit.rankedBy === 'bm25')).toBe(true);
    const without = await searchTools('send an email', tools, { k: 2, exclude: new Set(['send_email']) });
    expect(without.map((hit) => hit.name)).toEqual(['read_email']);
  });

  it('uses the selector ranking by score, and falls back to BM25 when the selector falls open', async () => {
    const scoring: ToolSelector = {
      name: 'scoring',
      select: (_ctx, all) => ({
        tools: all.slice(0, 3),
        reasons: { get_weather: { score: 0.2 }, send_email: { score: 0.9 }, read_email: { score: 0.5 } },
      }),
    };
    const hits = await searchTools('anything', tools, { selector: scoring, k: 2 });
    expect(hits).toEqual([
      { name: 'send_email', score: 0.9, rankedBy: 'selector' },
      { name: 'read_email', score: 0.5, rankedBy: 'selector' },
    ]);
    const open: ToolSelector = { name: 'open', select: (_ctx, all) => ({ tools: all, fellOpen: 'no idea' }) };
    expect((await searchTools('stock price', tools, { selector: open, k: 1 })).map((hit) => hit.name)).toEqual([
      'stock_price',
    ]);
  });

  it("lists a selection's near picks after its ranked picks, whatever their scores", async () => {
    // A near pick widens what a turn advertises; a clause's best may carry a lower score.
    const widened: ToolSelector = {
      name: 'widened',
      select: (_ctx, all) => ({
        tools: all.slice(0, 3),
        reasons: {
          get_weather: { score: 0.9 },
          send_email: { score: 0.4 },
          read_email: { score: 0.6, near: true },
        },
      }),
    };
    const hits = await searchTools('anything', tools, { selector: widened, k: 2 });
    expect(hits.map((hit) => hit.name)).toEqual(['get_weather', 'send_email']);
    const all = await searchTools('anything', tools, { selector: widened, k: 3 });
    expect(all.map((hit) => hit.name)).toEqual(['get_weather', 'send_email', 'read_email']);
  });

  it('asks a selector with withTopK to rank past the excluded tools, so its own ranking still finds k', async () => {
    // Ranks every tool by a fixed order and returns its top `topK` with scores.
    const order = ['send_email', 'read_email', 'get_weather', 'stock_price'];
    const ranked = (topK: number): ToolSelector & { withTopK(k: number): ToolSelector } => ({
      name: `ranked@${topK}`,
      select: (_ctx, all) => {
        const top = order.slice(0, topK);
        return {
          tools: all.filter((tool) => top.includes(tool.name)),
          reasons: Object.fromEntries(top.map((name, i) => [name, { score: 1 - i / 10 }])),
        };
      },
      withTopK: (k) => ranked(k),
    });
    const hits = await searchTools('mail', tools, {
      selector: ranked(2),
      k: 2,
      exclude: new Set(['send_email', 'read_email']),
    });
    expect(hits).toEqual([
      { name: 'get_weather', score: 0.8, rankedBy: 'selector' },
      { name: 'stock_price', score: 0.7, rankedBy: 'selector' },
    ]);
  });

  it('returns nothing for a blank query, rejects a bad k and a throwing selector', async () => {
    expect(await searchTools('   ', tools)).toEqual([]);
    await expect(searchTools('email', tools, { k: 0 })).rejects.toThrow(RangeError);
    const broken: ToolSelector = {
      name: 'broken',
      select: () => {
        throw new Error('index missing');
      },
    };
    await expect(searchTools('email', tools, { selector: broken })).rejects.toThrow(/index missing/);
  });
});
