/**
 * Every `ts` snippet of docs/tool-search.md, run as written: with the real `ai` 7.0.173,
 * `@anthropic-ai/sdk` 1.10.0, `openai` 7.55.0, `@openai/agents` 0.20.0 and `@google/genai`
 * 3.6.1, against the scripted
 * model server. A snippet's imports are bound to the same modules (the `loopctl` subpaths to
 * their sources), its free names (`selector`, `registry`, `model`, …) to the values below, and
 * the SDK clients find the server through their own environment variables. What it declares at
 * its top level comes back, so the test can check what it did; the server's records say what
 * went over the wire. A new snippet on the page fails the test until it is run here.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import * as anthropicSdk from '@anthropic-ai/sdk';
import * as genai from '@google/genai';
import * as agents from '@openai/agents';
import * as agentsOpenAI from '@openai/agents-openai';
import * as ai from 'ai';
import * as openaiSdk from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as aiSdkAdapter from '../../src/adapters/ai-sdk.js';
import * as anthropicAdapter from '../../src/adapters/anthropic-tool-search.js';
import * as geminiAdapter from '../../src/adapters/gemini-tool-search.js';
import * as agentsAdapter from '../../src/adapters/openai-agents.js';
import * as openaiAdapter from '../../src/adapters/openai-tool-search.js';
import * as root from '../../src/index.js';
import type { AnthropicMessagesOptions } from '../../src/model/anthropic-messages.js';
import { Bm25Selector } from '../../src/select/bm25-selector.js';
import type { AsyncToolSelector } from '../../src/select/selector.js';
import { StaticSelector } from '../../src/select/static-selector.js';
import { body, toolbox, useScriptedServer } from '../loop/helpers.js';

const server = useScriptedServer();
const page = readFileSync(fileURLToPath(new URL('../../docs/tool-search.md', import.meta.url)), 'utf8');

/** The page's `ts` snippets, each keyed by the heading above it (a second one under it gets `#2`). */
function snippets(markdown: string): Map<string, string> {
  const found = new Map<string, string>();
  let heading = '';
  for (const part of markdown.split(/^```/m).entries()) {
    const [index, text] = part;
    if (index % 2 === 0) {
      const last = [...text.matchAll(/^#+ (.*)$/gm)].at(-1)?.[1];
      if (last !== undefined) heading = last.trim();
      continue;
    }
    if (!text.startsWith('ts\n')) continue;
    let key = heading;
    for (let n = 2; found.has(key); n++) key = `${heading} #${n}`;
    found.set(key, text.slice(3));
  }
  return found;
}

const SNIPPETS = snippets(page);
const dir = mkdtempSync(join(tmpdir(), 'loopctl-doc-snippets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Run one snippet: its imports become bindings of `modules`, its free names come from `scope`,
 * and the names it declares at its top level are returned.
 */
async function runSnippet(
  key: string,
  modules: Record<string, unknown>,
  scope: Record<string, unknown>,
): Promise<Record<string, any>> {
  const code = SNIPPETS.get(key);
  if (code === undefined) throw new Error(`no snippet under "${key}" in docs/tool-search.md`);
  const bindings: string[] = [];
  const lines: string[] = [];
  for (const line of code.split('\n')) {
    if (line.startsWith('import type ')) continue; // types only: nothing to bind at run time
    const imported = /^import (?:(\w+)|\{([^}]*)\}) from '([^']+)'$/.exec(line);
    if (!imported) {
      lines.push(line);
      continue;
    }
    const [, defaultName, named, specifier] = imported;
    if (!(specifier && specifier in modules)) throw new Error(`${key}: no module for '${specifier}'`);
    const from = `__modules[${JSON.stringify(specifier)}]`;
    bindings.push(
      defaultName
        ? `const ${defaultName} = ${from}.default;`
        : `const { ${(named as string).replace(/\bas\b/g, ':')} } = ${from};`,
    );
  }
  const body = lines.join('\n');
  const declared = [...body.matchAll(/^(?:const|let) (?:\{([^}]*)\}|(\w+))/gm)].flatMap(([, list, name]) =>
    list ? list.split(',').map((item) => (item.split(':').at(-1) as string).trim()) : [name as string],
  );
  const file = join(dir, `${key.replace(/[^a-z0-9]+/gi, '-')}.ts`);
  writeFileSync(
    file,
    `export default async function (__modules: any, __scope: any) {\n` +
      `  const { ${Object.keys(scope).join(', ')} } = __scope;\n  ${bindings.join('\n  ')}\n${body}\n  return { ${declared.join(', ')} };\n}\n`,
  );
  const module = (await import(/* @vite-ignore */ file)) as {
    default: (modules: unknown, scope: unknown) => Promise<Record<string, any>>;
  };
  return module.default(modules, scope);
}

const SDK_MODULES = {
  ai,
  '@anthropic-ai/sdk': anthropicSdk,
  openai: openaiSdk,
  '@openai/agents': agents,
  '@openai/agents-openai': agentsOpenAI,
  '@google/genai': genai,
  'loopctl/ai-sdk': aiSdkAdapter,
  'loopctl/anthropic': anthropicAdapter,
  'loopctl/openai': openaiAdapter,
  'loopctl/openai-agents': agentsAdapter,
  'loopctl/gemini': geminiAdapter,
};

// The SDKs' own environment variables point them at the scripted server.
const ENV = [
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_API_KEY',
  'OPENAI_BASE_URL',
  'OPENAI_API_KEY',
  'OPENAI_AGENTS_DISABLE_TRACING',
  'GOOGLE_GEMINI_BASE_URL',
  'GEMINI_API_KEY',
] as const;
const savedEnv = new Map(ENV.map((name) => [name, process.env[name]]));
beforeAll(() => {
  Object.assign(process.env, {
    ANTHROPIC_BASE_URL: server.current.anthropicBaseURL,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    OPENAI_BASE_URL: server.current.openAIBaseURL,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_AGENTS_DISABLE_TRACING: '1',
    GOOGLE_GEMINI_BASE_URL: server.current.url,
    GEMINI_API_KEY: 'gemini-test',
  });
});
afterAll(() => {
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const schema = { type: 'object' as const, properties: { to: { type: 'string' } } };
const DEFINITIONS = [
  { name: 'get_weather', description: 'Current weather and forecast for a city.' },
  { name: 'send_email', description: 'Send an email message to a recipient.' },
  { name: 'stock_price', description: 'Latest trading price of a stock ticker.' },
];

/** The dispatcher the vendor snippets call for ordinary tools, logging each call. */
function dispatcher() {
  const calls: { name: string; input: unknown }[] = [];
  const callTool = async (name: string, input: unknown) => {
    calls.push({ name, input });
    return `${name} done`;
  };
  return { calls, callTool };
}

/** BM25, recording each query it is asked to rank: the proof a snippet's search is loopctl's. */
function recordingBm25(): { selector: AsyncToolSelector; asked: (string | undefined)[] } {
  const bm25 = new Bm25Selector();
  const asked: (string | undefined)[] = [];
  return {
    asked,
    selector: {
      name: 'bm25',
      select: (ctx, all) => {
        asked.push(ctx.latestUserMessage);
        return bm25.select(ctx, all);
      },
    },
  };
}

const requestTools = (i: number) =>
  (body(server.current.requests[i]).tools as { name?: string; function?: { name: string } }[]).map(
    (t) => t.name ?? t.function?.name,
  );

describe('docs/tool-search.md snippets', () => {
  it('are the ones this file runs (a new snippet needs a case here)', () => {
    expect([...SNIPPETS.keys()]).toEqual([
      'The loop in deferred mode',
      'Vercel AI SDK (`ai` 7.0.173): `loopctl/ai-sdk`',
      'Vercel AI SDK (`ai` 7.0.173): `loopctl/ai-sdk` #2',
      'Anthropic (`@anthropic-ai/sdk` 1.10.0): `loopctl/anthropic`',
      'OpenAI Responses (`openai` 7.55.0): `loopctl/openai`',
      'OpenAI Agents SDK (`@openai/agents` 0.20.0): `loopctl/openai-agents`',
      'Gemini (`@google/genai` 3.6.1): `loopctl/gemini`',
    ]);
  });

  it('the loop in deferred mode: the pick is loaded, the rest deferred, find_tools reveals, the found tool is called', async () => {
    const { registry, calls } = toolbox();
    // The page's client, pointed at the scripted server.
    const loopctl = {
      ...root,
      anthropicMessagesClient: (options: AnthropicMessagesOptions) =>
        root.anthropicMessagesClient({ ...options, baseURL: server.current.anthropicBaseURL }),
    };
    server.current.enqueue(
      { toolCalls: [{ id: 'toolu_1', name: 'find_tools', arguments: { query: 'send an email' } }] },
      { toolCalls: [{ id: 'toolu_2', name: 'send_email', arguments: { to: 'kim', body: 'the report' } }] },
      { text: 'Sent.' },
    );
    const { text } = await runSnippet(
      'The loop in deferred mode',
      { loopctl },
      { apiKey: 'sk-ant-test', registry, selector: new StaticSelector(['get_weather']) },
    );
    expect(text).toBe('Sent.');
    expect(calls).toEqual([{ name: 'send_email', args: { to: 'kim', body: 'the report' } }]);
    const [first, second] = server.current.requests;
    expect(first?.seenTools).toEqual(['get_weather', 'find_tools']);
    expect(first?.deferredTools).toEqual(expect.arrayContaining(['send_email', 'search_docs', 'lookup_order']));
    expect(second?.seenTools).toContain('send_email');
    expect(second?.rejected).toBeUndefined();
  });

  it('AI SDK toolSearch: loopctl ranks, the deferred tool is offered after the search and called', async () => {
    server.current.enqueue(
      { toolCalls: [{ id: 'c1', name: 'toolSearch', arguments: { query: 'send an email' } }] },
      { toolCalls: [{ id: 'c2', name: 'send_email', arguments: { to: 'kim' } }] },
      { text: 'Emailed Kim.' },
    );
    const model = createOpenAI({ baseURL: server.current.openAIBaseURL, apiKey: 'sk-test' }).chat('scripted');
    const { selector, asked } = recordingBm25();
    const { text } = await runSnippet('Vercel AI SDK (`ai` 7.0.173): `loopctl/ai-sdk`', SDK_MODULES, {
      model,
      selector,
    });
    expect(text).toBe('Emailed Kim.');
    expect(asked).toEqual(['send an email']);
    expect(requestTools(0)).toEqual(['toolSearch', 'get_weather']);
    expect(requestTools(1)).toEqual(['toolSearch', 'get_weather', 'send_email']);
    const result = body(server.current.requests[2]).messages.find(
      (m: { role: string; content: string }) => m.role === 'tool' && m.content.includes('sent to'),
    );
    expect(result?.content).toContain('sent to kim');
  });

  it('AI SDK activeToolsStep: each step offers only the selected tool', async () => {
    server.current.enqueue({ text: 'Sent.' });
    const model = createOpenAI({ baseURL: server.current.openAIBaseURL, apiKey: 'sk-test' }).chat('scripted');
    const { selector, asked } = recordingBm25();
    const { text, tools } = await runSnippet('Vercel AI SDK (`ai` 7.0.173): `loopctl/ai-sdk` #2', SDK_MODULES, {
      model,
      selector,
    });
    expect(text).toBe('Sent.');
    expect(asked).toEqual(['Email Kim the report']);
    expect(Object.keys(tools)).toEqual(['get_weather', 'send_email']);
    expect(requestTools(0)).toEqual(['send_email']);
  });

  it('Anthropic: the search answers with tool_reference blocks, the found tool is then called', async () => {
    const { calls, callTool } = dispatcher();
    server.current.enqueue(
      { toolCalls: [{ id: 'toolu_s', name: 'find_tools', arguments: { query: 'send an email message' } }] },
      { toolCalls: [{ id: 'toolu_e', name: 'send_email', arguments: { to: 'kim' } }] },
      { text: 'Emailed Kim.' },
    );
    const anthropicSearch = recordingBm25();
    const allTools = DEFINITIONS.map((tool) => ({ ...tool, input_schema: schema }));
    const { reply, messages, tools } = await runSnippet(
      'Anthropic (`@anthropic-ai/sdk` 1.10.0): `loopctl/anthropic`',
      SDK_MODULES,
      {
        allTools,
        callTool,
        selector: anthropicSearch.selector,
      },
    );
    expect(anthropicSearch.asked).toEqual(['send an email message']);
    expect(reply.content).toEqual([expect.objectContaining({ type: 'text', text: 'Emailed Kim.' })]);
    expect(
      tools
        .filter((tool: { defer_loading?: boolean }) => tool.defer_loading)
        .map((tool: { name: string }) => tool.name),
    ).toEqual(['send_email', 'stock_price']);
    expect(messages[2].content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_s',
      content: [{ type: 'tool_reference', tool_name: 'send_email' }],
    });
    expect(calls).toEqual([{ name: 'send_email', input: { to: 'kim' } }]);
    const [first, second] = server.current.requests;
    expect(first?.seenTools).toEqual(['get_weather', 'find_tools']);
    expect(second?.seenTools).toContain('send_email');
    expect(server.current.requests.every((request) => request.rejected === undefined)).toBe(true);
  });

  it('OpenAI Responses: a tool_search_call is answered with the found definitions, the found function is then called', async () => {
    const { calls, callTool } = dispatcher();
    server.current.enqueue(
      { toolCalls: [{ id: 'ts_1', kind: 'tool_search', name: '', arguments: { query: 'send an email message' } }] },
      { toolCalls: [{ id: 'fc_1', name: 'send_email', arguments: { to: 'kim' } }] },
      { text: 'Emailed Kim.' },
    );
    const responsesSearch = recordingBm25();
    const functionTools = DEFINITIONS.map((tool) => ({
      type: 'function' as const,
      ...tool,
      parameters: schema,
      strict: false,
    }));
    const { response, input } = await runSnippet('OpenAI Responses (`openai` 7.55.0): `loopctl/openai`', SDK_MODULES, {
      functionTools,
      callTool,
      selector: responsesSearch.selector,
    });
    expect(responsesSearch.asked).toEqual(['send an email message']);
    expect(response.output_text).toBe('Emailed Kim.');
    expect(input[2]).toMatchObject({
      type: 'tool_search_output',
      call_id: 'ts_1',
      tools: [expect.objectContaining({ name: 'send_email' })],
    });
    expect(calls).toEqual([{ name: 'send_email', input: { to: 'kim' } }]);
    const [first, second] = server.current.requests;
    expect(first?.seenTools).toEqual(['get_weather']);
    expect(first?.deferredTools).toEqual(['send_email', 'stock_price']);
    expect(second?.seenTools).toContain('send_email');
  });

  it('OpenAI Agents SDK: the client-executed toolSearchTool loads the deferred tool the agent calls', async () => {
    server.current.enqueue(
      { toolCalls: [{ id: 'ts_1', kind: 'tool_search', name: '', arguments: { query: 'send an email' } }] },
      { toolCalls: [{ id: 'fc_1', name: 'send_email', arguments: { to: 'kim' } }] },
      { text: 'Emailed Kim.' },
    );
    const { selector, asked } = recordingBm25();
    const { finalOutput } = await runSnippet(
      'OpenAI Agents SDK (`@openai/agents` 0.20.0): `loopctl/openai-agents`',
      SDK_MODULES,
      { selector },
    );
    expect(finalOutput).toBe('Emailed Kim.');
    expect(asked).toEqual(['send an email']);
    const [first, second, third] = server.current.requests;
    expect(first?.deferredTools).toEqual(['send_email']);
    expect(first?.seenTools).toEqual([]);
    expect(second?.seenTools).toEqual(['send_email']);
    expect(JSON.stringify(body(third).input)).toContain('sent to kim');
  });
});

describe('docs/tool-search.md snippets: Gemini', () => {
  it('a tool_search_call is answered with a tool_search_result, the found function is then called', async () => {
    const { calls, callTool } = dispatcher();
    server.current.enqueue(
      { toolCalls: [{ id: 'ts_1', kind: 'tool_search', name: '', arguments: { query: 'send an email message' } }] },
      { toolCalls: [{ id: 'fc_1', name: 'send_email', arguments: { to: 'kim' } }] },
      { text: 'Emailed Kim.' },
    );
    const geminiSearch = recordingBm25();
    const functionTools = DEFINITIONS.map((tool) => ({ type: 'function' as const, ...tool, parameters: schema }));
    const { interaction, steps } = await runSnippet('Gemini (`@google/genai` 3.6.1): `loopctl/gemini`', SDK_MODULES, {
      functionTools,
      callTool,
      selector: geminiSearch.selector,
      model: 'gemini-scripted',
    });
    expect(geminiSearch.asked).toEqual(['send an email message']);
    expect(interaction.output_text).toBe('Emailed Kim.');
    expect(steps[2]).toMatchObject({
      type: 'tool_search_result',
      call_id: 'ts_1',
      result: [expect.objectContaining({ name: 'send_email' })],
    });
    expect(calls).toEqual([{ name: 'send_email', input: { to: 'kim' } }]);
    const [first, second] = server.current.requests;
    expect(first?.path).toBe('/v1/interactions');
    expect(first?.seenTools).toEqual(['get_weather']);
    expect(first?.deferredTools).toEqual(['send_email', 'stock_price']);
    expect(second?.seenTools).toContain('send_email');
    expect(server.current.requests.every((request) => request.rejected === undefined)).toBe(true);
  });
});

describe('docs/tool-search.md figures and versions', () => {
  it('carries the reachable-recall table of docs/benchmarks.json, as npm run eval writes it', async () => {
    // @ts-expect-error: a plain .mjs script, no declarations
    const { END, START, reachableTable } = (await import('../../scripts/reachable-table.mjs')) as {
      START: string;
      END: string;
      reachableTable: (rows: unknown[]) => string;
    };
    const benchmarks = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../docs/benchmarks.json', import.meta.url)), 'utf8'),
    ) as {
      kind?: string;
      set: string;
    }[];
    const rows = benchmarks.filter((row) => row.kind === 'reachable');
    // The three public sets, and the project's own registries (workdesk, holdout) when the eval had them.
    const sets = new Set(rows.map((row) => row.set));
    for (const set of ['bfcl', 'bfcl_multi_turn', 'metatool']) expect(sets, set).toContain(set);
    const table = page.slice(page.indexOf(START) + START.length, page.indexOf(END));
    expect(table).toBe(`\n${reachableTable(rows)}`);
  });

  it('names the package versions package.json pins', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as {
      devDependencies: Record<string, string>;
    };
    for (const name of [
      'ai',
      '@ai-sdk/openai',
      '@anthropic-ai/sdk',
      'openai',
      '@openai/agents',
      '@openai/agents-openai',
      '@google/genai',
    ]) {
      // A pin, or (for a package that comes with another) the installed version.
      const installed = () =>
        (
          JSON.parse(
            readFileSync(fileURLToPath(new URL(`../../node_modules/${name}/package.json`, import.meta.url)), 'utf8'),
          ) as { version: string }
        ).version;
      const pinned = pkg.devDependencies[name] ?? installed();
      const named = [
        ...page.matchAll(new RegExp(`\`${name.replace(/[/.@-]/g, '\\$&')}\` (\\d+\\.\\d+\\.\\d+)`, 'g')),
      ].map((match) => match[1]);
      expect(named.length, `${name} is named on the page`).toBeGreaterThan(0);
      for (const version of named) expect(version, name).toBe(pinned);
    }
  });
});
