/**
 * The proxy's contract, checked with the real client libraries (`openai`, `@anthropic-ai/sdk`,
 * the Vercel AI SDK with `@ai-sdk/openai`) against the scripted upstream. Framework-neutral:
 * Node (vitest) and workerd (vitest-pool-workers) each start the proxy their own way and run
 * every check. The clients reach the proxy through `target.fetch` (global fetch on Node,
 * `SELF.fetch` in workerd); what the upstream received comes from the fixture's control URL.
 *
 * Plain TypeScript with web APIs only: no vitest, no node:.
 */

import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { partBudget } from '../../src/select/part-anchors.js';
import { LINK_DEFAULTS } from '../../src/select/tool-links.js';
import { assert, CheckFailure, equal } from '../support/check-assertions.js';
import { anthropicTools, openAITools, wideToolSet } from '../support/wide-tool-set.js';

type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** One configuration of the proxy. */
export interface ProxyEndpoint {
  /** Origin, e.g. `http://127.0.0.1:8787`. */
  readonly baseURL: string;
  readonly fetch: FetchFn;
}

/** The proxy under test and its upstream. */
export interface ProxyTarget {
  /** Token mode, upstreams = the scripted server. */
  readonly api: ProxyEndpoint;
  readonly token: string;
  /** The key each upstream must receive in token mode (MODEL_API_KEY for OpenAI, PROXY_ANTHROPIC_API_KEY for Anthropic). */
  readonly upstreamKey: string;
  /** Pass-through mode: no proxy token, client keys go upstream. */
  readonly passthrough: ProxyEndpoint;
  /** Both upstreams point at a held port that resets every connection (nothing answers). */
  readonly deadUpstream: ProxyEndpoint;
  /** Token mode with a 1.5 s first-byte timeout and keep-alive comments every 0.3 s. */
  readonly slow: ProxyEndpoint;
  /** The upstream fixture's control URL. */
  readonly controlURL: string;
  /** The default selector in `api` (the header `x-loopctl-selector` is never needed). */
  readonly defaultSelector: string;
  /** Default k. */
  readonly k: number;
}

/** One check. */
export interface ProxyCheck {
  readonly name: string;
  run(t: ProxyTarget): Promise<void>;
}

const TOOLS = wideToolSet();
const WEATHER = 'What is the weather in Oslo right now?';

interface UpstreamRequest {
  index: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
  outcome: string | null;
  tools: string[];
}

let counter = 0;
function newId(): string {
  counter += 1;
  return `p${Date.now().toString(36)}${counter}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

async function upstream(t: ProxyTarget, id: string, settled = false): Promise<UpstreamRequest[]> {
  const response = await fetch(`${t.controlURL}/requests?id=${id}${settled ? '&settled=1' : ''}`);
  return (await response.json()) as UpstreamRequest[];
}

async function only(t: ProxyTarget, id: string): Promise<UpstreamRequest> {
  const requests = await upstream(t, id);
  equal(requests.length, 1, `upstream requests for ${id}`);
  return requests[0] as UpstreamRequest;
}

/** A fetch that records every body the client library sent. */
function recording(endpoint: ProxyEndpoint): { fetch: FetchFn; bodies: string[]; responses: Response[] } {
  const bodies: string[] = [];
  const responses: Response[] = [];
  return {
    bodies,
    responses,
    fetch: async (input, init) => {
      if (typeof init?.body === 'string') bodies.push(init.body);
      const response = await endpoint.fetch(input, init);
      responses.push(response);
      return response;
    },
  };
}

function openai(t: ProxyTarget, endpoint: ProxyEndpoint, fetch: FetchFn, apiKey = t.token): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${endpoint.baseURL}/v1`, fetch, maxRetries: 0 });
}

function anthropic(t: ProxyTarget, endpoint: ProxyEndpoint, fetch: FetchFn, apiKey = t.token): Anthropic {
  return new Anthropic({ apiKey, baseURL: endpoint.baseURL, fetch, maxRetries: 0 });
}

/** The proxy's own tools (server-side search), which lead the forwarded `tools`. */
const META = /^(?:loopctl_)?(?:find_tools|call_tool)(?:_\d+)?$/;

/** The client's tools among what the upstream saw. */
function clientTools(request: UpstreamRequest): string[] {
  return request.tools.filter((name) => !META.test(name));
}

/**
 * The client's body with only `tools` narrowed to `names` (the client's order) after the
 * proxy's own tools as the upstream received them: what the upstream must receive byte for
 * byte. Independent of the proxy's splicing: the SDKs send `JSON.stringify` output, and
 * reassigning a key keeps its place.
 */
function expectedBody(clientBody: string, names: readonly string[], upstreamBody?: string): string {
  const body = JSON.parse(clientBody) as { tools: { name?: string; function?: { name: string } }[] };
  const keep = new Set(names);
  const nameOf = (entry: { name?: string; function?: { name: string } }): string =>
    entry.function?.name ?? (entry.name as string);
  const lead = upstreamBody
    ? (JSON.parse(upstreamBody) as typeof body).tools.filter((entry) => META.test(nameOf(entry)))
    : [];
  body.tools = [...lead, ...body.tools.filter((entry) => keep.has(nameOf(entry)))];
  return JSON.stringify(body);
}

/**
 * The most client tools a narrowed request may carry: k, plus the budget whole-task selection
 * may add beyond it (a pick's prerequisite lookups, a clause's best tool, near picks), which
 * grows with the prompt's parts (`partBudget`): at its most for any prompt, since the random id
 * each check appends can split it. The lexical selectors never use it.
 */
const mostAdvertised = (t: ProxyTarget): number => t.k + partBudget(LINK_DEFAULTS.budget, Number.POSITIVE_INFINITY);

function checkNarrowed(t: ProxyTarget, request: UpstreamRequest, expected: string, what: string): void {
  const client = clientTools(request);
  const most = mostAdvertised(t);
  assert(
    client.length >= 1 && client.length <= most,
    `${what}: upstream saw ${client.length} client tools, expected 1..${most}: ${client.join(', ')}`,
  );
  assert(client.includes(expected), `${what}: ${expected} not among ${client.join(', ')}`);
  const order = TOOLS.map((tool) => tool.name).filter((name) => client.includes(name));
  equal(client.join(), order.join(), `${what}: kept tools keep the client's order`);
  // The default policy without a cached prefix: re-selected per message, the rest reachable through the proxy's search.
  equal(request.tools[0], 'find_tools', `${what}: the proxy's search tool leads the forwarded tools`);
}

async function rejects(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new CheckFailure('expected the call to fail');
}

export const PROXY_CHECKS: readonly ProxyCheck[] = [
  {
    name: 'openai: 150 tools in, the upstream sees <= k including the expected one, byte for byte otherwise',
    async run(t) {
      const id = newId();
      const client = recording(t.api);
      const { data, response } = await openai(t, t.api, client.fetch)
        .chat.completions.create({
          model: 'scripted',
          messages: [
            { role: 'system', content: 'You are terse.' },
            { role: 'user', content: `${WEATHER} [[id:${id}]]` },
          ],
          tools: openAITools(TOOLS),
          temperature: 0.2,
          // An unknown field: forwarded untouched.
          loopctl_unknown: { nested: [1, 'two', null] },
        } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming)
        .withResponse();
      equal(data.choices[0]?.message.content, 'Hello from the upstream.', 'answer text');
      equal(data.usage?.completion_tokens, 5, 'usage passes through');
      const request = await only(t, id);
      checkNarrowed(t, request, 'get_current_weather', 'openai');
      equal(
        request.rawBody,
        expectedBody(client.bodies[0] as string, request.tools, request.rawBody),
        'upstream body = client body with only tools narrowed',
      );
      equal(response.headers.get('x-loopctl-registered'), '150', 'x-loopctl-registered');
      equal(response.headers.get('x-loopctl-advertised'), String(request.tools.length), 'x-loopctl-advertised');
      equal(response.headers.get('x-loopctl-policy'), 'per-message', 'x-loopctl-policy');
      assert(
        Number(response.headers.get('x-loopctl-tokens-saved')) > 5000,
        `tokens saved: ${response.headers.get('x-loopctl-tokens-saved')}`,
      );
      equal(response.headers.get('x-loopctl-fell-open'), null, 'did not fall open');
      equal(
        request.headers.authorization,
        `Bearer ${t.upstreamKey}`,
        'upstream sees MODEL_API_KEY, not the proxy token',
      );
      assert(!JSON.stringify(request.headers).includes(t.token), 'the proxy token never reaches the upstream');
    },
  },
  {
    name: 'openai: streaming passes SSE through (text and usage), selection applied',
    async run(t) {
      const id = newId();
      const stream = await openai(t, t.api, t.api.fetch).chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }],
        tools: openAITools(TOOLS),
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let usage: number | undefined;
      let chunks = 0;
      for await (const chunk of stream) {
        chunks++;
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage.completion_tokens;
      }
      equal(text, 'Hello from the upstream.', 'streamed text');
      assert(chunks >= 4, `several SSE chunks arrived (${chunks})`);
      equal(usage, 5, 'streamed usage');
      const request = await only(t, id);
      checkNarrowed(t, request, 'get_current_weather', 'openai stream');
    },
  },
  {
    name: 'openai: a multi-turn conversation keeps every tool it already called declared',
    async run(t) {
      const id = newId();
      const completion = await openai(t, t.api, t.api.fetch).chat.completions.create({
        model: 'scripted',
        messages: [
          { role: 'user', content: 'File a Jira issue about the login bug, then email Ana.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'jira_create_issue', arguments: '{"title":"Login bug"}' },
              },
              {
                id: 'call_2',
                type: 'function',
                function: { name: 'send_email', arguments: '{"to":"ana@example.com"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"id":"JIRA-7"}' },
          { role: 'tool', tool_call_id: 'call_2', content: 'sent' },
          { role: 'assistant', content: 'Done: JIRA-7, and Ana has the email.' },
          { role: 'user', content: `Thanks. ${WEATHER} [[id:${id}]]` },
        ],
        tools: openAITools(TOOLS),
      });
      equal(completion.choices[0]?.message.content, 'Hello from the upstream.', 'answer');
      const request = await only(t, id);
      for (const name of ['jira_create_issue', 'send_email', 'get_current_weather']) {
        assert(request.tools.includes(name), `${name} declared upstream: ${request.tools.join(', ')}`);
      }
      assert(request.tools.length < 150, 'still narrowed');
    },
  },
  {
    name: 'openai: tool_choice naming an unselected tool keeps that tool',
    async run(t) {
      const id = newId();
      await openai(t, t.api, t.api.fetch).chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }],
        tools: openAITools(TOOLS),
        tool_choice: { type: 'function', function: { name: 'spotify_delete_playlist' } },
      });
      const request = await only(t, id);
      assert(request.tools.includes('spotify_delete_playlist'), `forced tool kept: ${request.tools.join(', ')}`);
      assert(request.tools.includes('get_current_weather'), 'selection still applied');
      assert(
        clientTools(request).length <= mostAdvertised(t) + 1,
        `at most k (+ budget) + the forced one: ${request.tools.length}`,
      );
    },
  },
  {
    name: 'openai: the same prompt and tools give the same upstream bytes every turn',
    async run(t) {
      const id = newId();
      const client = openai(t, t.api, t.api.fetch);
      const params = {
        model: 'scripted',
        messages: [{ role: 'user' as const, content: `Deploy the payments service to staging [[id:${id}]]` }],
        tools: openAITools(TOOLS),
      };
      await client.chat.completions.create(params);
      await client.chat.completions.create(params);
      const requests = await upstream(t, id);
      equal(requests.length, 2, 'two upstream requests');
      equal(requests[0]?.rawBody, requests[1]?.rawBody, 'identical bodies');
      assert(clientTools(requests[0]!).length <= mostAdvertised(t), 'narrowed');
    },
  },
  {
    name: 'openai: x-loopctl-bypass: 1 forwards the request untouched',
    async run(t) {
      const id = newId();
      const client = recording(t.api);
      const { response } = await new OpenAI({
        apiKey: t.token,
        baseURL: `${t.api.baseURL}/v1`,
        fetch: client.fetch,
        maxRetries: 0,
        defaultHeaders: { 'x-loopctl-bypass': '1' },
      }).chat.completions
        .create({
          model: 'scripted',
          messages: [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }],
          tools: openAITools(TOOLS),
        })
        .withResponse();
      const request = await only(t, id);
      equal(request.rawBody, client.bodies[0], 'byte-identical body');
      equal(request.tools.length, 150, 'all tools');
      equal(response.headers.get('x-loopctl-advertised'), '150', 'advertised header');
      equal(response.headers.get('x-loopctl-skipped'), 'bypass', 'skipped header');
    },
  },
  {
    name: 'openai and anthropic: a bad x-loopctl-k is a 400 in the provider shape; nothing goes upstream',
    async run(t) {
      const id = newId();
      const headers = { 'x-loopctl-k': 'lots' };
      const openaiError = await rejects(
        openai(t, t.api, t.api.fetch).chat.completions.create(
          {
            model: 'scripted',
            messages: [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }],
            tools: openAITools(TOOLS),
          },
          { headers },
        ),
      );
      assert(
        openaiError instanceof OpenAI.BadRequestError,
        `openai raises BadRequestError, got ${openaiError?.constructor?.name}: ${openaiError?.message}`,
      );
      equal(openaiError.type, 'invalid_request_error', 'openai error.type');
      equal(openaiError.param, 'x-loopctl-k', 'openai error.param');
      const anthropicError = await rejects(
        anthropic(t, t.api, t.api.fetch).messages.create(
          {
            model: 'scripted',
            max_tokens: 64,
            messages: [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }],
            tools: anthropicTools(TOOLS) as Anthropic.Tool[],
          },
          { headers: { 'x-loopctl-selector': 'no-such-selector' } },
        ),
      );
      assert(
        anthropicError instanceof Anthropic.BadRequestError,
        `anthropic raises BadRequestError, got ${anthropicError?.constructor?.name}`,
      );
      equal(
        (anthropicError.error as { type: string; error: { type: string } }).error.type,
        'invalid_request_error',
        'anthropic error.error.type',
      );
      assert(/no-such-selector/.test(anthropicError.message), 'message names the bad value');
      equal((await upstream(t, id)).length, 0, 'nothing reached the upstream');
    },
  },
  {
    name: 'openai and anthropic: an upstream 429 with Retry-After reaches the client unchanged',
    async run(t) {
      const id = newId();
      const openaiError = await rejects(
        openai(t, t.api, t.api.fetch).chat.completions.create({
          model: 'scripted',
          messages: [{ role: 'user', content: `[[scenario:rate-limit]] ${WEATHER} [[id:${id}]]` }],
          tools: openAITools(TOOLS),
        }),
      );
      assert(
        openaiError instanceof OpenAI.RateLimitError,
        `openai raises RateLimitError, got ${openaiError?.constructor?.name}`,
      );
      equal(openaiError.headers.get('retry-after'), '7', 'openai Retry-After');
      equal(openaiError.headers.get('x-ratelimit-remaining-requests'), '0', 'rate-limit headers pass');
      equal(openaiError.message.includes('Rate limit reached for requests'), true, 'upstream message');
      const anthropicError = await rejects(
        anthropic(t, t.api, t.api.fetch).messages.create({
          model: 'scripted',
          max_tokens: 64,
          messages: [{ role: 'user', content: `[[scenario:rate-limit]] ${WEATHER} [[id:${id}]]` }],
          tools: anthropicTools(TOOLS) as Anthropic.Tool[],
        }),
      );
      assert(
        anthropicError instanceof Anthropic.RateLimitError,
        `anthropic raises RateLimitError, got ${anthropicError?.constructor?.name}`,
      );
      equal(anthropicError.headers.get('retry-after'), '7', 'anthropic Retry-After');
      equal(
        (anthropicError.error as { error: { type: string } }).error.type,
        'rate_limit_error',
        'anthropic error type from upstream',
      );
    },
  },
  {
    name: 'openai: a client abort cancels the upstream request (waiting, and mid-stream)',
    async run(t) {
      const id = newId();
      const controller = new AbortController();
      const pending = openai(t, t.api, t.api.fetch).chat.completions.create(
        {
          model: 'scripted',
          messages: [{ role: 'user', content: `[[scenario:hang]] ${WEATHER} [[id:${id}]]` }],
          tools: openAITools(TOOLS),
        },
        { signal: controller.signal },
      );
      pending.catch(() => undefined);
      for (let i = 0; i < 100 && (await upstream(t, id)).length === 0; i++)
        await new Promise((done) => setTimeout(done, 50));
      controller.abort();
      const error = await rejects(pending);
      assert(error instanceof OpenAI.APIUserAbortError, `client sees its abort, got ${error?.constructor?.name}`);
      const [request] = await upstream(t, id, true);
      equal(request?.outcome, 'client-closed', 'the upstream request was cancelled');

      const streamId = newId();
      const streamAbort = new AbortController();
      const stream = await openai(t, t.api, t.api.fetch).chat.completions.create(
        {
          model: 'scripted',
          messages: [{ role: 'user', content: `[[scenario:slow-stream]] ${WEATHER} [[id:${streamId}]]` }],
          tools: openAITools(TOOLS),
          stream: true,
        },
        { signal: streamAbort.signal },
      );
      let received = 0;
      try {
        for await (const chunk of stream) {
          if (chunk.choices[0]?.delta.content) received++;
          if (received === 2) streamAbort.abort();
        }
      } catch {
        // The abort surfaces here.
      }
      const [streamed] = await upstream(t, streamId, true);
      equal(streamed?.outcome, 'client-closed', 'the upstream stream was cancelled mid-way');
    },
  },
  {
    name: 'anthropic: 150 tools, non-streaming and streaming, narrowed with the expected tool',
    async run(t) {
      const id = newId();
      const client = recording(t.api);
      const sdk = anthropic(t, t.api, client.fetch);
      const message = await sdk.messages.create({
        model: 'scripted',
        max_tokens: 256,
        system: 'You are terse.',
        messages: [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }],
        tools: anthropicTools(TOOLS) as Anthropic.Tool[],
      });
      equal(message.content[0]?.type === 'text' ? message.content[0].text : '', 'Hello from the upstream.', 'answer');
      const stream = sdk.messages.stream({
        model: 'scripted',
        max_tokens: 256,
        messages: [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }],
        tools: anthropicTools(TOOLS) as Anthropic.Tool[],
      });
      let text = '';
      stream.on('text', (delta) => {
        text += delta;
      });
      const final = await stream.finalMessage();
      equal(text, 'Hello from the upstream.', 'streamed text');
      equal(final.usage.output_tokens, 5, 'streamed usage');
      const requests = await upstream(t, id);
      equal(requests.length, 2, 'two upstream requests');
      for (const [i, request] of requests.entries()) {
        checkNarrowed(t, request, 'get_current_weather', `anthropic #${i}`);
        equal(
          request.rawBody,
          expectedBody(client.bodies[i] as string, request.tools, request.rawBody),
          'byte for byte but tools',
        );
        equal(request.headers['x-api-key'], t.upstreamKey, 'upstream sees PROXY_ANTHROPIC_API_KEY');
        assert(typeof request.headers['anthropic-version'] === 'string', 'anthropic-version forwarded');
      }
    },
  },
  {
    name: 'anthropic: earlier tool_use blocks keep their tools; tool_choice names an unselected tool',
    async run(t) {
      const id = newId();
      await anthropic(t, t.api, t.api.fetch).messages.create({
        model: 'scripted',
        max_tokens: 256,
        messages: [
          { role: 'user', content: 'Create a Notion page for the offsite.' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'notion_create_page', input: { title: 'Offsite' } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'created' }] },
          { role: 'assistant', content: 'The page is ready.' },
          { role: 'user', content: `${WEATHER} [[id:${id}]]` },
        ],
        tools: anthropicTools(TOOLS) as Anthropic.Tool[],
        tool_choice: { type: 'tool', name: 'twilio_create_SMS_message' },
      });
      const request = await only(t, id);
      for (const name of ['notion_create_page', 'twilio_create_SMS_message', 'get_current_weather']) {
        assert(request.tools.includes(name), `${name} declared: ${request.tools.join(', ')}`);
      }
    },
  },
  {
    name: 'anthropic: a cache_control breakpoint on a removed tool moves to the last kept tool',
    async run(t) {
      const id = newId();
      const tools = anthropicTools(TOOLS) as (Anthropic.Tool & { cache_control?: unknown })[];
      tools[149] = { ...tools[149]!, cache_control: { type: 'ephemeral', ttl: '1h' } };
      const client = recording(t.api);
      await anthropic(t, t.api, client.fetch).messages.create({
        model: 'scripted',
        max_tokens: 256,
        system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
        messages: [
          {
            role: 'user',
            content: [{ type: 'text', text: `${WEATHER} [[id:${id}]]`, cache_control: { type: 'ephemeral' } }],
          },
        ],
        tools: tools as Anthropic.Tool[],
      });
      const request = await only(t, id);
      assert(!request.tools.includes(tools[149]!.name), 'the breakpoint tool was removed');
      const sent = JSON.parse(request.rawBody) as {
        tools: { name: string; cache_control?: unknown }[];
        system: unknown;
        messages: unknown;
      };
      const marked = sent.tools.filter((entry) => entry.cache_control !== undefined);
      equal(marked.length, 1, 'one breakpoint among the tools');
      equal(marked[0], sent.tools[sent.tools.length - 1], 'on the last kept tool');
      equal(
        JSON.stringify(marked[0]?.cache_control),
        '{"type":"ephemeral","ttl":"1h"}',
        "the client's breakpoint value",
      );
      const client0 = JSON.parse(client.bodies[0] as string) as { system: unknown; messages: unknown };
      equal(JSON.stringify(sent.system), JSON.stringify(client0.system), 'system breakpoints untouched');
      equal(JSON.stringify(sent.messages), JSON.stringify(client0.messages), 'message breakpoints untouched');
    },
  },
  {
    name: 'AI SDK (ai + @ai-sdk/openai): generateText and streamText through the proxy',
    async run(t) {
      const id = newId();
      const provider = createOpenAI({
        baseURL: `${t.api.baseURL}/v1`,
        apiKey: t.token,
        fetch: t.api.fetch as typeof fetch,
      });
      const tools = Object.fromEntries(
        TOOLS.map((entry) => [
          entry.name,
          tool({ description: entry.description, inputSchema: jsonSchema(entry.parameters as never) }),
        ]),
      );
      const result = await generateText({
        model: provider.chat('scripted'),
        prompt: `${WEATHER} [[id:${id}]]`,
        tools,
        maxRetries: 0,
      });
      equal(result.text, 'Hello from the upstream.', 'generateText text');
      const streamed = streamText({
        model: provider.chat('scripted'),
        prompt: `${WEATHER} [[id:${id}]]`,
        tools,
        maxRetries: 0,
      });
      let text = '';
      for await (const delta of streamed.textStream) text += delta;
      equal(text, 'Hello from the upstream.', 'streamText text');
      const requests = await upstream(t, id);
      equal(requests.length, 2, 'two upstream requests');
      for (const request of requests) checkNarrowed(t, request, 'get_current_weather', 'AI SDK');
    },
  },
  {
    name: 'fewer tools than k pass through untouched; GET /v1/models passes through',
    async run(t) {
      const id = newId();
      const client = recording(t.api);
      const sdk = openai(t, t.api, client.fetch);
      await sdk.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }],
        tools: openAITools(TOOLS.slice(0, t.k - 1)),
      });
      const request = await only(t, id);
      equal(request.rawBody, client.bodies[0], 'byte-identical');
      equal(client.responses[0]?.headers.get('x-loopctl-skipped'), 'under-k', 'skipped: under-k');
      const models = await sdk.models.list();
      equal(models.data[0]?.id, 'scripted', 'models listed from the upstream');
    },
  },
  {
    name: 'auth: a wrong proxy token is a 401 AuthenticationError; pass-through mode forwards the client key',
    async run(t) {
      const id = newId();
      const wrong = await rejects(
        openai(t, t.api, t.api.fetch, 'not-the-token').chat.completions.create({
          model: 'scripted',
          messages: [{ role: 'user', content: `hi [[id:${id}]]` }],
        }),
      );
      assert(
        wrong instanceof OpenAI.AuthenticationError,
        `openai AuthenticationError, got ${wrong?.constructor?.name}`,
      );
      const wrongAnthropic = await rejects(
        anthropic(t, t.api, t.api.fetch, 'not-the-token').messages.create({
          model: 'scripted',
          max_tokens: 8,
          messages: [{ role: 'user', content: `hi [[id:${id}]]` }],
        }),
      );
      assert(
        wrongAnthropic instanceof Anthropic.AuthenticationError,
        `anthropic AuthenticationError, got ${wrongAnthropic?.constructor?.name}`,
      );
      equal((await upstream(t, id)).length, 0, 'nothing reached the upstream');

      const passId = newId();
      await openai(t, t.passthrough, t.passthrough.fetch, 'sk-client-own-key').chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: `${WEATHER} [[id:${passId}]]` }],
        tools: openAITools(TOOLS),
      });
      await anthropic(t, t.passthrough, t.passthrough.fetch, 'sk-ant-client-key').messages.create({
        model: 'scripted',
        max_tokens: 8,
        messages: [{ role: 'user', content: `${WEATHER} [[id:${passId}]]` }],
      });
      const [viaOpenAI, viaAnthropic] = await upstream(t, passId);
      equal(viaOpenAI?.headers.authorization, 'Bearer sk-client-own-key', 'client key forwarded (openai)');
      // @anthropic-ai/sdk 1.x sends the key as a bearer token; older versions as x-api-key.
      const anthropicKey =
        viaAnthropic?.headers['x-api-key'] ?? viaAnthropic?.headers.authorization?.replace(/^Bearer /, '');
      equal(anthropicKey, 'sk-ant-client-key', 'client key forwarded (anthropic)');
      assert(clientTools(viaOpenAI!).length <= mostAdvertised(t), 'still selecting in pass-through mode');
    },
  },
  {
    name: 'an unreachable upstream is a 502 in the provider shape',
    async run(t) {
      const openaiError = await rejects(
        openai(t, t.deadUpstream, t.deadUpstream.fetch).chat.completions.create({
          model: 'scripted',
          messages: [{ role: 'user', content: WEATHER }],
          tools: openAITools(TOOLS),
        }),
      );
      assert(
        openaiError instanceof OpenAI.InternalServerError,
        `openai InternalServerError, got ${openaiError?.constructor?.name}`,
      );
      equal(openaiError.status, 502, 'status');
      equal(openaiError.type, 'upstream_error', 'type');
      const anthropicError = await rejects(
        anthropic(t, t.deadUpstream, t.deadUpstream.fetch).messages.create({
          model: 'scripted',
          max_tokens: 8,
          messages: [{ role: 'user', content: WEATHER }],
        }),
      );
      equal(anthropicError.status, 502, 'anthropic status');
      equal((anthropicError.error as { type: string; error: { type: string } }).type, 'error', 'anthropic shape');
    },
  },
  {
    name: 'malformed JSON, a tool without a name, and an oversized body: 400/413 in the provider shape',
    async run(t) {
      const post = (path: string, body: string, headers: Record<string, string> = {}) =>
        t.api.fetch(`${t.api.baseURL}${path}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${t.token}`,
            'content-type': 'application/json',
            'anthropic-version': '2023-06-01',
            ...headers,
          },
          body,
        });
      const malformed = await post('/v1/chat/completions', '{"model":"m",');
      equal(malformed.status, 400, 'malformed status');
      const openaiBody = (await malformed.json()) as { error: { type: string; message: string } };
      equal(openaiBody.error.type, 'invalid_request_error', 'openai shape');
      const nameless = await post(
        '/v1/messages',
        JSON.stringify({
          model: 'm',
          max_tokens: 8,
          messages: [{ role: 'user', content: 'hi' }],
          tools: [{ description: 'x', input_schema: { type: 'object' } }],
        }),
      );
      equal(nameless.status, 400, 'nameless status');
      const anthropicBody = (await nameless.json()) as { type: string; error: { type: string; message: string } };
      equal(anthropicBody.type, 'error', 'anthropic shape');
      equal(anthropicBody.error.type, 'invalid_request_error', 'anthropic type');
      assert(/tools\.0\.name/.test(anthropicBody.error.message), `names the field: ${anthropicBody.error.message}`);
      const huge = await post(
        '/v1/messages',
        JSON.stringify({
          model: 'm',
          max_tokens: 8,
          messages: [{ role: 'user', content: 'x'.repeat(9 * 1024 * 1024) }],
        }),
      );
      equal(huge.status, 413, 'oversized status');
      equal(((await huge.json()) as { error: { type: string } }).error.type, 'request_too_large', 'anthropic 413 type');
    },
  },
];
