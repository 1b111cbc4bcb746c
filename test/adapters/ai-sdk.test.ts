/**
 * `loopctl/ai-sdk` with the real Vercel AI SDK (`ai` 7.0.173 + `@ai-sdk/openai` 4.0.118) against
 * the scripted model server (Chat Completions): loopctl's ranking as `toolSearch`'s search, and
 * a `prepareStep` that sets `activeTools` from a selector.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool, toolSearch } from 'ai';
import { describe, expect, it } from 'vitest';
import { activeToolsStep, toolSearchFunction } from '../../src/adapters/ai-sdk.js';
import { Bm25Selector } from '../../src/select/bm25-selector.js';
import type { AsyncToolSelector } from '../../src/select/selector.js';
import { body, useScriptedServer } from '../loop/helpers.js';

const server = useScriptedServer();
const model = () => createOpenAI({ baseURL: server.current.openAIBaseURL, apiKey: 'sk-test' }).chat('scripted');
const params = jsonSchema<{ to?: string; city?: string }>({
  type: 'object',
  properties: { to: { type: 'string' }, city: { type: 'string' } },
});
const sent: string[] = [];

function tools(search: ReturnType<typeof toolSearch>) {
  return {
    toolSearch: search,
    get_weather: tool({
      description: 'Current weather for a city.',
      inputSchema: params,
      execute: async () => 'sunny',
    }),
    send_email: tool({
      description: 'Send an email message to a recipient.',
      inputSchema: params,
      deferLoading: true,
      execute: async ({ to }) => {
        sent.push(String(to));
        return 'sent';
      },
    }),
    stock_price: tool({
      description: 'Latest trading price of a stock ticker.',
      inputSchema: params,
      deferLoading: true,
      execute: async () => '42',
    }),
  };
}

const toolNames = (i: number) => (body(server.current.requests[i]).tools as any[]).map((t) => t.function.name);

describe('toolSearchFunction: loopctl ranks the AI SDK toolSearch', () => {
  it('a deferred tool it finds is offered and called on the next step; before, it is not on the wire', async () => {
    sent.length = 0;
    server.current.enqueue(
      { toolCalls: [{ id: 'c1', name: 'toolSearch', arguments: { query: 'send an email to a colleague' } }] },
      { toolCalls: [{ id: 'c2', name: 'send_email', arguments: { to: 'kim@example.com' } }] },
      { text: 'Done.' },
    );
    const result = await generateText({
      model: model(),
      tools: tools(toolSearch({ search: toolSearchFunction() })),
      stopWhen: stepCountIs(4),
      prompt: 'Email Kim the report.',
      maxRetries: 0,
    });
    expect(result.text).toBe('Done.');
    expect(sent).toEqual(['kim@example.com']);
    expect(toolNames(0)).toEqual(['toolSearch', 'get_weather']);
    expect(toolNames(1)).toEqual(['toolSearch', 'get_weather', 'send_email']);
    const found = body(server.current.requests[1]).messages.find((m: any) => m.role === 'tool');
    expect(JSON.parse(found.content)).toEqual({
      tools: [{ name: 'send_email', description: 'Send an email message to a recipient.' }],
    });
  });

  it('ranks with the given selector, over the deferred tools only, and the SDK keeps at most maxResults (its default finds nothing here)', async () => {
    const seen: string[][] = [];
    const reversed: AsyncToolSelector = {
      name: 'reversed',
      select: (_ctx, all) => {
        seen.push(all.map((t) => t.name));
        return { tools: all, reasons: Object.fromEntries(all.map((t, i) => [t.name, { score: i + 1 }])) };
      },
    };
    server.current.enqueue(
      { toolCalls: [{ id: 'c1', name: 'toolSearch', arguments: { query: 'anything' } }] },
      { text: 'ok' },
    );
    await generateText({
      model: model(),
      tools: tools(toolSearch({ search: toolSearchFunction({ selector: reversed }), maxResults: 1 })),
      stopWhen: stepCountIs(2),
      prompt: 'hi',
      maxRetries: 0,
    });
    expect(seen).toEqual([['send_email', 'stock_price']]);
    expect(toolNames(1)).toEqual(['toolSearch', 'get_weather', 'stock_price']);

    // The same call through the SDK's default keyword search: no word of "anything" matches.
    server.current.enqueue(
      { toolCalls: [{ id: 'c1', name: 'toolSearch', arguments: { query: 'anything' } }] },
      { text: 'ok' },
    );
    await generateText({
      model: model(),
      tools: tools(toolSearch({ maxResults: 1 })),
      stopWhen: stepCountIs(2),
      prompt: 'hi',
      maxRetries: 0,
    });
    expect(toolNames(3)).toEqual(['toolSearch', 'get_weather']);
  });

  it('a blank query is a tool error the model reads; the generation goes on', async () => {
    const search = toolSearchFunction();
    await expect(search({ query: '   ', tools: [{ name: 'send_email' }] })).rejects.toThrow(/non-empty "query"/);
    expect(() => toolSearchFunction({ k: 0 })).toThrow(RangeError);
  });
});

describe('activeToolsStep: a selector sets activeTools', () => {
  it('offers only the selected tools on every step of one prompt (plus the always-on ones)', async () => {
    const all = {
      get_weather: tool({
        description: 'Current weather for a city.',
        inputSchema: params,
        execute: async () => 'sunny',
      }),
      send_email: tool({
        description: 'Send an email message to a recipient.',
        inputSchema: params,
        execute: async () => 'sent',
      }),
      stock_price: tool({
        description: 'Latest trading price of a stock ticker.',
        inputSchema: params,
        execute: async () => '42',
      }),
    };
    server.current.enqueue(
      { toolCalls: [{ id: 'w', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Sunny.' },
    );
    const result = await generateText({
      model: model(),
      tools: all,
      prepareStep: activeToolsStep({ selector: new Bm25Selector({ topK: 1 }), tools: all, always: ['stock_price'] }),
      stopWhen: stepCountIs(3),
      prompt: 'What is the weather in Oslo?',
      maxRetries: 0,
    });
    expect(result.text).toBe('Sunny.');
    expect(toolNames(0)).toEqual(['get_weather', 'stock_price']);
    expect(toolNames(1)).toEqual(['get_weather', 'stock_price']);
  });
});
