/**
 * The examples a proxied conversation carries, on every protocol: a prompt → the tools called
 * in reply whose result is not an error, `call_tool` counted as the tool it names, each keyed
 * by the conversation so a re-sent conversation gives the same keys.
 */
import { describe, expect, it } from 'vitest';
import { resultIsError } from '../../src/hono/proxy/learn/example-steps.js';
import { trafficExamples } from '../../src/hono/proxy/learn/traffic-examples.js';
import { anthropicMessages, openAIChat, openAIResponses } from '../../src/hono/proxy/protocols/index.js';
import type { ProxyProtocol } from '../../src/hono/proxy/proxy-protocol.js';

const TOOLS = new Set(['get_weather', 'send_email', 'list_files']);

/** A conversation: prompt 1 → weather (ok) + email (error); prompt 2 → list_files through call_tool. */
function body(protocol: 'openai' | 'anthropic' | 'responses', second = 'And list my files'): Record<string, unknown> {
  if (protocol === 'openai')
    return {
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'Weather in Oslo, then mail it' },
        {
          role: 'assistant',
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
            { id: 'b', type: 'function', function: { name: 'send_email', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: '{"temp": 3}' },
        { role: 'tool', tool_call_id: 'b', content: 'Error: SMTP refused' },
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: second },
        {
          role: 'assistant',
          tool_calls: [
            {
              id: 'c',
              type: 'function',
              function: { name: 'call_tool', arguments: '{"name":"list_files","arguments":{}}' },
            },
            { id: 'd', type: 'function', function: { name: 'find_tools', arguments: '{"query":"x"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c', content: '["a.txt"]' },
        { role: 'tool', tool_call_id: 'd', content: 'found' },
      ],
    };
  if (protocol === 'anthropic')
    return {
      messages: [
        { role: 'user', content: 'Weather in Oslo, then mail it' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'a', name: 'get_weather', input: {} },
            { type: 'tool_use', id: 'b', name: 'send_email', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: '{"temp": 3}' },
            { type: 'tool_result', tool_use_id: 'b', content: 'refused', is_error: true },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
        { role: 'user', content: [{ type: 'text', text: second }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'c', name: 'call_tool', input: { name: 'list_files', arguments: {} } }],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'c', content: [{ type: 'text', text: 'a.txt' }] }],
        },
      ],
    };
  return {
    input: [
      { role: 'user', content: 'Weather in Oslo, then mail it' },
      { type: 'function_call', call_id: 'a', name: 'get_weather', arguments: '{}' },
      { type: 'function_call', call_id: 'b', name: 'send_email', arguments: '{}' },
      { type: 'function_call_output', call_id: 'a', output: '{"temp": 3}' },
      { type: 'function_call_output', call_id: 'b', output: '{"error": "SMTP refused"}' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: second }] },
      { type: 'function_call', call_id: 'c', name: 'call_tool', arguments: '{"name":"list_files","arguments":{}}' },
      { type: 'function_call_output', call_id: 'c', output: '["a.txt"]' },
    ],
  };
}

const PROTOCOLS: Record<string, ProxyProtocol> = {
  openai: openAIChat,
  anthropic: anthropicMessages,
  responses: openAIResponses,
};

async function examplesOf(protocol: 'openai' | 'anthropic' | 'responses', json: Record<string, unknown>) {
  const object = PROTOCOLS[protocol] as ProxyProtocol;
  const steps = object.exampleSteps?.(json) ?? [];
  return trafficExamples(object.name, steps, TOOLS);
}

describe.each(['openai', 'anthropic', 'responses'] as const)('%s conversations', (protocol) => {
  it('label each prompt with the tools called in reply, errors and unknown tools left out', async () => {
    const examples = await examplesOf(protocol, body(protocol));
    expect(examples.map(({ query, tools }) => ({ query, tools }))).toEqual([
      { query: 'Weather in Oslo, then mail it', tools: ['get_weather'] },
      { query: 'And list my files', tools: ['list_files'] },
    ]);
  });

  it('give the same keys to the same conversation re-sent, and to its prefix', async () => {
    const once = await examplesOf(protocol, body(protocol));
    const again = await examplesOf(protocol, JSON.parse(JSON.stringify(body(protocol))));
    expect(again.map((example) => example.key)).toEqual(once.map((example) => example.key));
    expect(once[0]?.key).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(once.map((example) => example.key)).size).toBe(2);
  });

  it('key the same words in another conversation apart', async () => {
    const one = await examplesOf(protocol, body(protocol, 'And list my files'));
    const other = await examplesOf(protocol, body(protocol, 'Now list my files'));
    expect(other[0]?.key).toBe(one[0]?.key); // the shared prefix
    expect(other[1]?.key).not.toBe(one[1]?.key);
  });

  it('learn nothing from calls whose results have not come back', async () => {
    const json = body(protocol);
    const list = (json.messages ?? json.input) as unknown[];
    const cut = protocol === 'anthropic' ? 2 : 3; // up to the first calls, no results yet
    const examples = await examplesOf(protocol, {
      ...json,
      [json.messages ? 'messages' : 'input']: list.slice(0, cut),
    });
    expect(examples).toEqual([]);
  });
});

describe('resultIsError', () => {
  it.each([
    ['Error: no such file', true],
    ['  traceback (most recent call last)', true],
    ['{"error": "nope"}', true],
    ['{"isError": true, "content": []}', true],
    ['{"error": null, "ok": 1}', false],
    ['{"temperature": 21}', false],
    ['no errors found', false],
  ])('%s → %s', (text, error) => {
    expect(resultIsError(text)).toBe(error);
  });
});
