/**
 * The billing rules `npm run bench:cache` applies (test/proxy/cache-bill.ts), on small requests
 * whose bills can be worked out by hand; and the bench's target under every breakpoint
 * placement, on a session of the project's own wide tool set.
 */
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { wideToolSet } from '../support/wide-tool-set.js';
import type { Scenario } from './cache-bench.js';
import { PLACEMENTS, runPlacementBench } from './cache-bench.js';
import { CacheBiller, promptBlocks } from './cache-bill.js';

const filler = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i % 7}`).join(' ');
const tools = (count: number, cached: boolean) =>
  Array.from({ length: count }, (_, i) => ({
    name: `tool_${i}`,
    description: filler(60, `d${i}`),
    input_schema: { type: 'object' },
    ...(cached && i === count - 1 ? { cache_control: { type: 'ephemeral' } } : {}),
  }));
const message = (role: string, text: string, cached: boolean) => ({
  role,
  content: [{ type: 'text', text, ...(cached ? { cache_control: { type: 'ephemeral' } } : {}) }],
});

describe('Anthropic caching rules', () => {
  it('writes the prefix at 1.25× at its breakpoints, then reads it at 0.1×; the part after the last breakpoint is 1×', () => {
    const biller = new CacheBiller({ provider: 'anthropic', cached: true });
    const first = { tools: tools(20, true), system: 'sys', messages: [message('user', filler(50, 'u'), true)] };
    const bill = biller.bill(promptBlocks('anthropic', first));
    expect(bill.read).toBe(0);
    expect(bill.written).toBe(bill.tokens);
    expect(bill.units).toBeCloseTo(bill.tokens * 1.25);
    // The same conversation one turn on: the old breakpoint's prefix is read, the new turn written.
    const second = {
      tools: tools(20, true),
      system: 'sys',
      messages: [
        message('user', filler(50, 'u'), false),
        message('assistant', 'ok', false),
        message('user', filler(30, 'v'), true),
      ],
    };
    const next = biller.bill(promptBlocks('anthropic', second));
    expect(next.read).toBe(bill.tokens);
    expect(next.written).toBe(next.tokens - bill.tokens);
    expect(next.units).toBeCloseTo(bill.tokens * 0.1 + (next.tokens - bill.tokens) * 1.25);
  });

  it('a changed tool rewrites everything after it; a prefix under 1,024 tokens is not cached; deferred tools cost nothing', () => {
    const biller = new CacheBiller({ provider: 'anthropic', cached: true });
    biller.bill(promptBlocks('anthropic', { tools: tools(20, true), messages: [message('user', 'hi', true)] }));
    const changed = tools(20, true);
    changed[0] = { ...changed[0], description: 'changed' } as (typeof changed)[number];
    const bill = biller.bill(promptBlocks('anthropic', { tools: changed, messages: [message('user', 'hi', true)] }));
    expect(bill.read).toBe(0);
    const small = new CacheBiller({ provider: 'anthropic', cached: true }).bill(
      promptBlocks('anthropic', { tools: tools(1, true), messages: [message('user', 'hi', true)] }),
    );
    expect(small.tokens).toBeLessThan(1024);
    expect(small.units).toBe(small.tokens);
    const deferred = promptBlocks('anthropic', {
      tools: [...tools(2, false), { name: 'x', input_schema: {}, defer_loading: true }],
      messages: [],
    });
    expect(deferred).toHaveLength(2);
  });

  it('a hit must sit at most 20 blocks before a breakpoint', () => {
    const biller = new CacheBiller({ provider: 'anthropic', cached: true });
    const base = [message('user', filler(1200, 'a'), true)];
    biller.bill(promptBlocks('anthropic', { messages: base }));
    const near = [
      ...base.map((m) => message(m.role, m.content[0]!.text, false)),
      ...Array.from({ length: 20 }, (_, i) => message(i % 2 ? 'user' : 'assistant', `t${i}`, i === 19)),
    ];
    expect(
      new CacheBiller({ provider: 'anthropic', cached: true }).bill(promptBlocks('anthropic', { messages: near })).read,
    ).toBe(0);
    expect(biller.bill(promptBlocks('anthropic', { messages: near })).read).toBeGreaterThan(1000);
    const far = [
      ...base.map((m) => message(m.role, m.content[0]!.text, false)),
      ...Array.from({ length: 21 }, (_, i) => message(i % 2 ? 'user' : 'assistant', `f${i}`, i === 20)),
    ];
    expect(
      new CacheBiller({ provider: 'anthropic', cached: true }).bill(promptBlocks('anthropic', { messages: far })).read,
    ).toBe(0);
    const fresh = new CacheBiller({ provider: 'anthropic', cached: true });
    fresh.bill(promptBlocks('anthropic', { messages: base }));
    expect(fresh.bill(promptBlocks('anthropic', { messages: far })).read).toBe(0);
  });

  it('without a breakpoint nothing is cached', () => {
    const biller = new CacheBiller({ provider: 'anthropic', cached: true });
    const body = { tools: tools(20, false), messages: [message('user', 'hi', false)] };
    biller.bill(promptBlocks('anthropic', body));
    const bill = biller.bill(promptBlocks('anthropic', body));
    expect(bill.units).toBe(bill.tokens);
  });
});

describe('OpenAI caching rules', () => {
  const chat = (messages: unknown[]) => ({
    tools: tools(20, false).map((tool) => ({ type: 'function', function: tool })),
    messages,
  });

  it('a repeated prefix of 1,024+ tokens is read in 128-token steps at the cached price; no write premium', () => {
    const biller = new CacheBiller({ provider: 'openai', cached: true, read: 0.25 });
    const first = biller.bill(promptBlocks('openai', chat([{ role: 'user', content: 'hi' }])));
    expect(first.units).toBe(first.tokens);
    const second = biller.bill(
      promptBlocks(
        'openai',
        chat([
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ]),
      ),
    );
    expect(second.read % 128).toBe(0);
    expect(second.read).toBeGreaterThan(first.tokens - 128);
    expect(second.read).toBeLessThanOrEqual(first.tokens);
    expect(second.units).toBeCloseTo(second.read * 0.25 + (second.tokens - second.read));
  });

  it('prompts under 1,024 tokens are never cached; an uncached server bills every token', () => {
    const biller = new CacheBiller({ provider: 'openai', cached: true });
    const small = { messages: [{ role: 'user', content: 'hi' }] };
    biller.bill(promptBlocks('openai', small));
    expect(biller.bill(promptBlocks('openai', small)).read).toBe(0);
    const none = new CacheBiller({ provider: 'openai', cached: false });
    none.bill(promptBlocks('openai', chat([])));
    const bill = none.bill(promptBlocks('openai', chat([])));
    expect(bill.units).toBe(bill.tokens);
    expect(bill.tokens).toBeGreaterThan(countTokens('tool_0'));
  });
});

describe('the bench target under every breakpoint placement', () => {
  // Ten user turns of three tool rounds each (40 requests), as the bench's synthetic session.
  const needs: [string, string][] = [
    ['What is the weather in Oslo right now?', 'get_current_weather'],
    ['Send an email to Ana about the May invoice', 'send_email'],
    ['File a Jira issue about the login outage', 'jira_create_issue'],
    ['Delete my old workout playlist on Spotify', 'spotify_delete_playlist'],
    ['Show me the open pull requests', 'list_pull_requests'],
    ['Roll back the last deployment of payments', 'rollback_deployment'],
    ['Find a free slot with Ben tomorrow', 'find_free_time'],
    ['Convert 200 euros to dollars', 'convert_currency'],
    ['Open a PagerDuty incident for the database', 'pagerduty_create_incident'],
    ['Update the Shopify product price for the mug', 'shopify_update_product'],
  ];
  const scenario: Scenario = {
    id: 'session 10×3 (wide tool set)',
    system: `You operate the user's tools. ${'Answer briefly and call a tool when one is needed. '.repeat(150)}`,
    turns: needs.map(([query, call]) => ({ query, calls: [call, call, call] })),
  };

  it('the default bills at most what forwarding every tool does, wherever the client puts its breakpoints, under both rules', async () => {
    const rows = await runPlacementBench({ scenario, tools: wideToolSet(), selector: 'bm25', results: 2000 });
    expect(rows.map((row) => `${row.placement}/${row.provider}`)).toEqual(
      PLACEMENTS.flatMap((placement) => [`${placement}/anthropic`, `${placement}/openai`]),
    );
    const over = rows
      .filter((row) => row.units.default > row.units.all * 1.0005)
      .map(
        (row) =>
          `${row.placement} under ${row.provider}'s rules: ${Math.round((100 * row.units.default) / row.units.all)}% of all tools`,
      );
    expect(over).toEqual([]);
    for (const row of rows) expect(row.reached.default).toBe(1);
  }, 120_000);
});
