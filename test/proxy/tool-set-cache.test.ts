/**
 * The per-tool-set cache behind the proxy's request parsing: a warm request (tools text seen
 * before) parses only the rest of the body, and must give exactly what a full parse gives;
 * a changed tools list is never served from the cache; the cache stays bounded.
 */
import { describe, expect, it } from 'vitest';
import { forwardBody } from '../../src/hono/proxy/forward-body.js';
import { topLevelSpans } from '../../src/hono/proxy/json-spans.js';
import type { ProxyRequest, ProxyRequestError, WireProtocol } from '../../src/hono/proxy/proxy-request.js';
import { parseProxyRequest } from '../../src/hono/proxy/proxy-request.js';
import type { ToolSet } from '../../src/hono/proxy/tool-set-cache.js';
import { toolSetCache } from '../../src/hono/proxy/tool-set-cache.js';
import { openAITools, wideToolSet } from '../support/wide-tool-set.js';

const TOOLS = openAITools(wideToolSet());
const body = (prompt: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'm', messages: [{ role: 'user', content: prompt }], tools: TOOLS, ...extra });

/** Everything a request carries that the proxy acts on, as plain data. */
function observable(request: ProxyRequest) {
  return {
    text: request.text,
    toolsSpan: request.toolsSpan,
    tools: request.tools,
    selectable: request.selectable,
    costs: request.costs,
    toolChoice: request.toolChoice,
    called: [...request.called],
    query: request.query,
    turn: request.turn,
    conversation: request.conversation,
    breakpoints: request.breakpoints,
  };
}

function refusal(protocol: WireProtocol, text: string, cache = toolSetCache()): ProxyRequestError {
  try {
    parseProxyRequest(protocol, text, cache);
  } catch (error) {
    return error as ProxyRequestError;
  }
  throw new Error('accepted');
}

describe('parsing with a tool-set cache', () => {
  it('a warm request gives exactly what a full parse gives, and the same forwarded bytes', () => {
    const cache = toolSetCache();
    const first = parseProxyRequest('openai', body('Send an email to Ana'), cache);
    expect(cache.size).toBe(1);
    // Another prompt, another position of the tools array, odd spacing around it.
    const text = `{ "tool_choice" : {"type":"function","function":{"name":"send_email"}},\n "tools" :  ${JSON.stringify(TOOLS)} ,"messages":[{"role":"user","content":"What is the weather in Oslo?"},{"role":"assistant","tool_calls":[{"id":"1","type":"function","function":{"name":"get_current_weather","arguments":"{}"}}]}],"model":"m"}`;
    const warm = parseProxyRequest('openai', text, cache);
    const cold = parseProxyRequest('openai', text);
    expect(observable(warm)).toEqual(observable(cold));
    expect(warm.tools[3]?.span.start).toBeGreaterThan(first.tools[3]?.span.start ?? 0);
    // The selectors get the very same list object for the same tools, so their indexes stay warm.
    expect(warm.selectable).toBe(first.selectable);
    const kept = [0, 7, 42, 149];
    expect(forwardBody(warm, kept)).toBe(forwardBody(cold, kept));
    expect(JSON.parse(forwardBody(warm, kept)).tools).toEqual(kept.map((index) => TOOLS[index]));
    expect(cache.size).toBe(1);
  });

  it('the same prompt gives the same bytes, turn after turn', () => {
    const cache = toolSetCache();
    const text = body('Deploy the payments service');
    const runs = Array.from({ length: 3 }, () => forwardBody(parseProxyRequest('openai', text, cache), [1, 2, 3]));
    expect(new Set(runs).size).toBe(1);
    expect(runs[0]).toBe(forwardBody(parseProxyRequest('openai', text), [1, 2, 3]));
  });

  it('a changed tools list is never served from the cache', () => {
    const cache = toolSetCache();
    parseProxyRequest('openai', body('hi'), cache);
    // One description changed deep inside the array: same length, same prefix.
    const edited = structuredClone(TOOLS);
    const fn = (edited[100] as { function: { description: string } }).function;
    fn.description = fn.description.replace(/^./, (c) => (c === 'X' ? 'Y' : 'X'));
    const warm = parseProxyRequest('openai', body('hi', { tools: edited }), cache);
    expect(warm.selectable[100]?.description).toBe(fn.description);
    // One tool more at the end: the old text is a prefix of the new one, minus its bracket.
    const longer = [
      ...TOOLS,
      { type: 'function', function: { name: 'extra_tool', description: 'One more', parameters: {} } },
    ];
    const grown = parseProxyRequest('openai', body('hi', { tools: longer }), cache);
    expect(grown.tools.map((tool) => tool.name)).toEqual(
      longer.map((tool) => (tool as { function: { name: string } }).function.name),
    );
    // One tool fewer.
    const shorter = parseProxyRequest('openai', body('hi', { tools: TOOLS.slice(0, 149) }), cache);
    expect(shorter.tools).toHaveLength(149);
    expect(cache.size).toBe(4);
  });

  it('the last "tools" member counts, as in JSON.parse, even when an earlier one is cached', () => {
    const cache = toolSetCache();
    parseProxyRequest('openai', body('hi'), cache);
    const other = [{ type: 'function', function: { name: 'only_one', parameters: {} } }];
    const text = `{"tools":${JSON.stringify(TOOLS)},"messages":[{"role":"user","content":"hi"}],"tools":${JSON.stringify(other)}}`;
    const request = parseProxyRequest('openai', text, cache);
    expect(request.tools.map((tool) => tool.name)).toEqual(['only_one']);
    expect(request.toolsSpan).toEqual(topLevelSpans(text).get('tools'));
    expect(forwardBody(request, [0])).toBe(text);
  });

  it('malformed JSON around cached tools is refused with the same error as without the cache', () => {
    const cache = toolSetCache();
    parseProxyRequest('openai', body('hi'), cache);
    const tools = JSON.stringify(TOOLS);
    const broken = [
      `{"tools":${tools},"messages":[{"role":"user","content":"hi"}]`,
      `{"tools":${tools} "messages":[]}`,
      `{"tools":${tools},"messages":[{"role":"user","content":"hi}]}`,
      `{"a":"${tools}"}`,
      `{"tools":${tools}}}`,
      `["tools",${tools}]`,
    ];
    for (const text of broken) {
      const warm = refusal('openai', text, cache);
      const cold = refusal('openai', text, undefined);
      expect({ status: warm.status, message: warm.message, param: warm.param }).toEqual({
        status: cold.status,
        message: cold.message,
        param: cold.param,
      });
      expect(warm.status).toBe(400);
    }
  });

  it('an invalid tools list is refused every time and never cached', () => {
    const cache = toolSetCache();
    const duplicate = body('hi', { tools: [...TOOLS, TOOLS[0]] });
    expect(refusal('openai', duplicate, cache).message).toMatch(/duplicate tool name/);
    expect(refusal('openai', duplicate, cache).message).toMatch(/duplicate tool name/);
    expect(cache.size).toBe(0);
  });

  it('one cache per protocol: the same text is read by each dialect on its own', () => {
    const anthropicTools = JSON.stringify([
      { name: 'alpha', input_schema: { type: 'object' } },
      { name: 'beta', input_schema: { type: 'object' } },
    ]);
    const text = `{"messages":[{"role":"user","content":"hi"}],"tools":${anthropicTools}}`;
    const caches = { openai: toolSetCache(), anthropic: toolSetCache() };
    const viaAnthropic = parseProxyRequest('anthropic', text, caches.anthropic);
    const viaOpenAI = parseProxyRequest('openai', text, caches.openai);
    expect(viaAnthropic.selectable.map((tool) => tool.name)).toEqual(['alpha', 'beta']);
    // To OpenAI these are not function tools: named, kept, never ranked.
    expect(viaOpenAI.selectable).toEqual([]);
    expect(parseProxyRequest('openai', text, caches.openai).selectable).toEqual([]);
  });

  it('a breakpoint on a cached tool is seen on a warm request as on a cold one', () => {
    const tools = JSON.stringify([
      { name: 'alpha', input_schema: { type: 'object' } },
      { name: 'beta', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
    ]);
    const text = (prompt: string) => `{"messages":[{"role":"user","content":"${prompt}"}],"tools":${tools}}`;
    const cache = toolSetCache();
    expect(parseProxyRequest('anthropic', text('hi'), cache).breakpoints).toBe(true);
    const warm = parseProxyRequest('anthropic', text('and then?'), cache);
    expect(cache.size).toBe(1);
    expect(warm.breakpoints).toBe(true);
    // Without one anywhere, still none.
    const plain = `{"messages":[{"role":"user","content":"hi"}],"tools":${JSON.stringify(JSON.parse(tools).map(({ cache_control: _, ...tool }: Record<string, unknown>) => tool))}}`;
    parseProxyRequest('anthropic', plain, cache);
    expect(parseProxyRequest('anthropic', plain, cache).breakpoints).toBe(false);
  });
});

describe('toolSetCache bounds', () => {
  const set = (name: string): ToolSet => ({
    tools: [],
    all: [{ name, description: '', parameters: {} }],
    costs: [],
    nativeSearch: false,
    breakpoints: false,
  });
  const tools = (name: string, pad = 0) => JSON.stringify([{ name, description: 'x'.repeat(pad) }]);

  it('keeps at most maxEntries sets, evicting the least recently used', () => {
    const cache = toolSetCache({ maxEntries: 2 });
    cache.add(tools('a'), set('a'));
    cache.add(tools('b'), set('b'));
    expect(cache.match(`{"tools":${tools('a')}}`, 9)?.set.all[0]?.name).toBe('a'); // a is now the most recent
    cache.add(tools('c'), set('c'));
    expect(cache.size).toBe(2);
    expect(cache.match(tools('b'), 0)).toBeUndefined();
    expect(cache.match(tools('a'), 0)?.set.all[0]?.name).toBe('a');
    expect(cache.match(tools('c'), 0)?.set.all[0]?.name).toBe('c');
  });

  it('keeps at most maxChars of tools text, and never a text larger than that alone', () => {
    const cache = toolSetCache({ maxChars: 1000 });
    cache.add(tools('a', 400), set('a'));
    cache.add(tools('b', 400), set('b'));
    expect(cache.size).toBe(2);
    cache.add(tools('c', 400), set('c'));
    expect(cache.size).toBe(2);
    expect(cache.chars).toBeLessThanOrEqual(1000);
    expect(cache.match(tools('a', 400), 0)).toBeUndefined();
    cache.add(tools('huge', 2000), set('huge'));
    expect(cache.match(tools('huge', 2000), 0)).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('matches only a whole cached array at the given offset', () => {
    const cache = toolSetCache();
    cache.add(tools('a'), set('a'));
    const text = `{"tools":${tools('a')}}`;
    expect(cache.match(text, 9)).toBeDefined();
    expect(cache.match(text, 8)).toBeUndefined();
    expect(cache.match(`{"tools":${tools('a').slice(0, -1)}`, 9)).toBeUndefined();
  });
});
