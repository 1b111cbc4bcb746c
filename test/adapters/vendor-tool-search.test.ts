/**
 * loopctl's ranking behind the vendor SDKs' tool search, with the real packages against the
 * scripted model server: `loopctl/anthropic` with `@anthropic-ai/sdk` 1.10.0 (tool_reference
 * results), `loopctl/openai` with `openai` 7.55.0 (a client-executed tool_search), and
 * `loopctl/openai-agents` with `@openai/agents` 0.20.0 (`toolSearchTool({ execution: 'client',
 * execute })`).
 */
import Anthropic from '@anthropic-ai/sdk';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { toolSearchTool } from '@openai/agents-openai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { anthropicToolSearch } from '../../src/adapters/anthropic-tool-search.js';
import { agentsToolSearch } from '../../src/adapters/openai-agents.js';
import { responsesToolSearch } from '../../src/adapters/openai-tool-search.js';
import type { AsyncToolSelector } from '../../src/select/selector.js';
import { useScriptedServer } from '../loop/helpers.js';

const server = useScriptedServer();
const schema = { type: 'object' as const, properties: { to: { type: 'string' }, city: { type: 'string' } } };
const TOOLS = [
  { name: 'get_weather', description: 'Current weather and forecast for a city.' },
  { name: 'send_email', description: 'Send an email message to a recipient.' },
  { name: 'stock_price', description: 'Latest trading price of a stock ticker.' },
  { name: 'read_email', description: 'Read an email message from the inbox.' },
];

describe('loopctl/anthropic with @anthropic-ai/sdk', () => {
  it('declares the rest deferred, answers the search with tool_reference blocks, and the found tool is then callable', async () => {
    const anthropic = new Anthropic({ baseURL: server.current.anthropicBaseURL, apiKey: 'sk-ant-test', maxRetries: 0 });
    const search = anthropicToolSearch({ k: 1 });
    const tools = search.tools(
      TOOLS.map((t) => ({ ...t, input_schema: schema })),
      ['get_weather'],
    );
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Email Kim the forecast.' }];
    server.current.enqueue(
      { toolCalls: [{ id: 'toolu_s', name: 'find_tools', arguments: { query: 'send an email message' } }] },
      { toolCalls: [{ id: 'toolu_e', name: 'send_email', arguments: { to: 'kim' } }] },
    );
    const first = await anthropic.messages.create({ model: 'claude-scripted', max_tokens: 256, tools, messages });
    expect(server.current.requests[0]?.seenTools).toEqual(['get_weather', 'find_tools']);
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const block of first.content)
      if (block.type === 'tool_use' && search.handles(block)) results.push(await search.handle(block, tools));
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_s', content: [{ type: 'tool_reference', tool_name: 'send_email' }] },
    ]);
    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: results });
    const second = await anthropic.messages.create({ model: 'claude-scripted', max_tokens: 256, tools, messages });
    expect(second.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'send_email' })]);
    expect(server.current.requests[1]?.seenTools).toContain('send_email');
    expect(server.current.requests[1]?.rejected).toBeUndefined();
  });

  it('bad input: no query or a blank one, another tool, and no match are results, never throws', async () => {
    const search = anthropicToolSearch();
    const tools = search.tools(
      TOOLS.map((t) => ({ ...t, input_schema: schema })),
      ['get_weather'],
    );
    expect(await search.handle({ id: 'a', name: 'find_tools', input: {} }, tools)).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/non-empty "query"/),
    });
    expect(await search.handle({ id: 'b', name: 'find_tools', input: { query: ' ' } }, tools)).toMatchObject({
      is_error: true,
    });
    expect(await search.handle({ id: 'c', name: 'get_weather', input: { query: 'x' } }, tools)).toMatchObject({
      is_error: true,
    });
    expect(await search.handle({ id: 'd', name: 'find_tools', input: { query: 'zzzz qqqq' } }, tools)).toEqual({
      type: 'tool_result',
      tool_use_id: 'd',
      content: 'No tools match "zzzz qqqq".',
    });
    const broken: AsyncToolSelector = {
      name: 'broken',
      select: () => {
        throw new Error('index gone');
      },
    };
    expect(
      await anthropicToolSearch({ selector: broken }).handle(
        { id: 'e', name: 'find_tools', input: { query: 'email' } },
        tools,
      ),
    ).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/index gone/),
    });
  });
});

describe('loopctl/openai with the openai SDK (Responses)', () => {
  it('answers a tool_search_call with the found definitions; the next response can call the found function', async () => {
    const openai = new OpenAI({ baseURL: server.current.openAIBaseURL, apiKey: 'sk-test', maxRetries: 0 });
    const search = responsesToolSearch({ k: 1 });
    const tools = search.tools(
      TOOLS.map((t) => ({ type: 'function' as const, ...t, parameters: schema, strict: false })),
      ['get_weather'],
    );
    server.current.enqueue(
      { toolCalls: [{ id: 'ts_1', kind: 'tool_search', name: '', arguments: { query: 'latest stock price' } }] },
      { toolCalls: [{ id: 'fc_1', name: 'stock_price', arguments: {} }] },
    );
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'What is ACME trading at?' }];
    const first = await openai.responses.create({ model: 'scripted', input, tools });
    expect(server.current.requests[0]?.seenTools).toEqual(['get_weather']);
    for (const item of first.output)
      if (item.type === 'tool_search_call') input.push(item, await search.handle(item, tools));
    expect(input[2]).toEqual({
      type: 'tool_search_output',
      call_id: 'ts_1',
      execution: 'client',
      status: 'completed',
      tools: [
        {
          type: 'function',
          name: 'stock_price',
          description: 'Latest trading price of a stock ticker.',
          parameters: schema,
          strict: false,
        },
      ],
    });
    const second = await openai.responses.create({ model: 'scripted', input, tools });
    expect(second.output[0]).toMatchObject({ type: 'function_call', name: 'stock_price' });
    expect(server.current.requests[1]?.seenTools).toContain('stock_price');
  });

  it('a blank query loads nothing and says why', async () => {
    const errors: string[] = [];
    const search = responsesToolSearch({ onError: (message) => errors.push(message) });
    const tools = search.tools([{ type: 'function' as const, name: 'send_email', parameters: schema }], []);
    const out = await search.handle({ type: 'tool_search_call', call_id: 'x', arguments: { query: '' } }, tools);
    expect(out.tools).toEqual([]);
    expect(errors).toEqual([expect.stringMatching(/non-empty "query"/)]);
  });
});

describe('loopctl/openai-agents with @openai/agents 0.20.0', () => {
  it('a client-executed toolSearchTool ranked by loopctl loads the deferred tool the agent then calls', async () => {
    setTracingDisabled(true);
    const emailed: string[] = [];
    const sendEmail = tool({
      name: 'send_email',
      description: 'Send an email message to a recipient.',
      parameters: {
        type: 'object' as const,
        properties: { to: { type: 'string' } },
        required: ['to'] as 'to'[],
        additionalProperties: true as const,
      },
      strict: false,
      deferLoading: true,
      execute: async (args) => {
        emailed.push(String((args as { to: string }).to));
        return 'sent';
      },
    });
    const stock = tool({
      name: 'stock_price',
      description: 'Latest trading price of a stock ticker.',
      parameters: {
        type: 'object' as const,
        properties: {},
        required: [] as string[],
        additionalProperties: true as const,
      },
      strict: false,
      deferLoading: true,
      execute: async () => '42',
    });
    const weather = tool({
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: {
        type: 'object' as const,
        properties: {},
        required: [] as string[],
        additionalProperties: true as const,
      },
      strict: false,
      execute: async () => 'sunny',
    });
    const agent = new Agent({
      name: 'assistant',
      instructions: 'Be brief.',
      tools: [toolSearchTool(agentsToolSearch({ k: 1 })), weather, sendEmail, stock],
    });
    server.current.enqueue(
      { toolCalls: [{ id: 'ts_1', kind: 'tool_search', name: '', arguments: { query: 'send an email message' } }] },
      { toolCalls: [{ id: 'fc_1', name: 'send_email', arguments: { to: 'kim@example.com' } }] },
      { text: 'Emailed Kim.' },
    );
    const runner = new Runner({
      modelProvider: new OpenAIProvider({
        openAIClient: new OpenAI({ baseURL: server.current.openAIBaseURL, apiKey: 'sk-test', maxRetries: 0 }),
      }),
    });
    const result = await runner.run(agent, 'Email Kim the report.');
    expect(result.finalOutput).toBe('Emailed Kim.');
    expect(emailed).toEqual(['kim@example.com']);
    const [first, second] = server.current.requests;
    expect(first?.deferredTools).toEqual(['send_email', 'stock_price']);
    expect(first?.seenTools).toEqual(['get_weather']);
    expect(second?.seenTools).toEqual(['get_weather', 'send_email']);
  });
});
