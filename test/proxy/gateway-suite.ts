/**
 * The proxy as a tool-search gateway (issue 29), checked with the real client libraries
 * against the recording upstream, on every runtime the proxy suite runs on (Node, workerd,
 * Deno):
 *
 * - the vendors' own tool search passes intact (deferred tools, the search tool, references,
 *   typed entries without a name, `allowed_tools`, `cache_control` never onto a deferred tool,
 *   no tokens claimed for tools that cost nothing);
 * - the proxy's server-side search: a tool the selection left out is found and called within
 *   the same client request; the client sees an ordinary answer; what was found comes back in
 *   the conversation the client sends next; under the stable policy the forwarded `tools`
 *   bytes never change within a conversation;
 * - `POST /v1/responses` with the same selection, keep rules and search;
 * - a first-byte timeout (504 in the provider's shape) and keep-alive comments while a stream waits.
 *
 * Plain TypeScript with web APIs only: no vitest, no node:.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { partBudget } from '../../src/select/part-anchors.js';
import { LINK_DEFAULTS } from '../../src/select/tool-links.js';
import { assert, CheckFailure, equal } from '../support/check-assertions.js';
import { anthropicTools, openAITools, wideToolSet } from '../support/wide-tool-set.js';
import type { ProxyCheck, ProxyEndpoint, ProxyTarget } from './proxy-suite.js';

const TOOLS = wideToolSet();
const WEATHER = 'What is the weather in Oslo right now?';
/** A tool no weather prompt selects: the model needs it, so it has to be searched for. */
const FAR = 'spotify_delete_playlist';
/** The scripted model's need, kept out of the user text (which is what selection reads). */
const NEED = `You are terse. [[scenario:need-${FAR}]]`;

type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

interface UpstreamRequest {
  index: number;
  headers: Record<string, string>;
  rawBody: string;
  outcome: string | null;
  tools: string[];
  rejected: string | null;
}

let counter = 0;
function newId(): string {
  counter += 1;
  return `g${Date.now().toString(36)}${counter}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

async function upstream(t: ProxyTarget, id: string, settled = false): Promise<UpstreamRequest[]> {
  const response = await fetch(`${t.controlURL}/requests?id=${id}${settled ? '&settled=1' : ''}`);
  return (await response.json()) as UpstreamRequest[];
}

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

function openai(
  t: ProxyTarget,
  endpoint: ProxyEndpoint = t.api,
  fetch: FetchFn = endpoint.fetch,
  headers: Record<string, string> = {},
): OpenAI {
  return new OpenAI({
    apiKey: t.token,
    baseURL: `${endpoint.baseURL}/v1`,
    fetch,
    maxRetries: 0,
    defaultHeaders: headers,
  });
}

function anthropic(
  t: ProxyTarget,
  endpoint: ProxyEndpoint = t.api,
  fetch: FetchFn = endpoint.fetch,
  headers: Record<string, string> = {},
): Anthropic {
  return new Anthropic({ apiKey: t.token, baseURL: endpoint.baseURL, fetch, maxRetries: 0, defaultHeaders: headers });
}

function responsesTools(): {
  type: 'function';
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: false;
}[] {
  return TOOLS.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
}

async function rejects(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new CheckFailure('expected the call to fail');
}

/** The approximate input tokens the scripted upstream reports for a body (ceil(chars / 4)). */
const reported = (request: UpstreamRequest): number => Math.ceil(request.rawBody.length / 4);

type AnthropicTool = Record<string, unknown>;

/** 3 loaded tools (the last with a breakpoint), 147 deferred, Anthropic's BM25 (or regex) tool search. */
function toolSearchTools(search: 'bm25' | 'regex' = 'bm25'): AnthropicTool[] {
  const custom = anthropicTools(TOOLS) as AnthropicTool[];
  const loadedNames = new Set(['get_current_weather', 'read_file', 'send_email']);
  const loaded = custom.filter((tool) => loadedNames.has(tool.name as string));
  (loaded[2] as AnthropicTool).cache_control = { type: 'ephemeral' };
  const deferred = custom
    .filter((tool) => !loadedNames.has(tool.name as string))
    .map((tool) => ({ ...tool, defer_loading: true }));
  return [...loaded, ...deferred, { type: `tool_search_tool_${search}_20251119`, name: `tool_search_tool_${search}` }];
}

const SEARCH_HISTORY = (id: string, search: 'bm25' | 'regex' = 'bm25'): Anthropic.MessageParam[] =>
  [
    { role: 'user', content: `File a Jira issue about the outage, then tell me the weather in Oslo [[id:${id}]]` },
    {
      role: 'assistant',
      content: [
        {
          type: 'server_tool_use',
          id: 'srvtoolu_01',
          name: `tool_search_tool_${search}`,
          input: { query: 'jira issue' },
        },
        {
          type: 'tool_search_tool_result',
          tool_use_id: 'srvtoolu_01',
          content: {
            type: 'tool_search_tool_search_result',
            tool_references: [
              { type: 'tool_reference', tool_name: 'jira_create_issue' },
              { type: 'tool_reference', tool_name: 'jira_update_issue' },
              { type: 'tool_reference', tool_name: 'linear_create_ticket' },
            ],
          },
        },
        { type: 'tool_use', id: 'toolu_01', name: 'jira_create_issue', input: { title: 'Outage' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'JIRA-9' }] },
  ] as unknown as Anthropic.MessageParam[];

export const GATEWAY_CHECKS: readonly ProxyCheck[] = [
  {
    name: 'anthropic tool search passes intact: 147 deferred, 3 loaded, the search tool, references and the breakpoint, byte for byte',
    async run(t) {
      const id = newId();
      const client = recording(t.api);
      const { data, response } = await anthropic(t, t.api, client.fetch, {
        'anthropic-beta': 'advanced-tool-use-2025-11-20',
      })
        .messages.create({
          model: 'scripted',
          max_tokens: 256,
          messages: SEARCH_HISTORY(id),
          tools: toolSearchTools() as unknown as Anthropic.Tool[],
        })
        .withResponse();
      equal(data.content[0]?.type, 'text', 'answered');
      const [request] = await upstream(t, id);
      equal(request?.rawBody, client.bodies[0], 'the upstream got the client body byte for byte');
      equal(request?.tools.length, 151, 'every tool, the search tool included');
      equal(response.headers.get('x-loopctl-skipped'), 'native-search', 'skipped: native-search');
      equal(response.headers.get('x-loopctl-tokens-saved'), '0', 'no tokens claimed');
      equal(request?.headers['anthropic-beta'], 'advanced-tool-use-2025-11-20', 'the beta header reaches the upstream');
    },
  },
  {
    name: 'anthropic tool search under x-loopctl-policy: narrow, every selector, BM25 and regex search: deferred and referenced tools stay, the breakpoint never lands on a deferred tool',
    async run(t) {
      const selectors = [...new Set([t.defaultSelector, 'keyword', 'bm25'])];
      for (const [index, selector] of selectors.entries()) {
        for (const search of ['bm25', 'regex'] as const) {
          const label = `${selector}, ${search} search`;
          const id = newId();
          const { response } = await anthropic(t, t.api, t.api.fetch, {
            'x-loopctl-policy': 'narrow',
            'x-loopctl-selector': selector,
          })
            .messages.create({
              model: 'scripted',
              max_tokens: 256,
              messages:
                index === 0 && search === 'bm25'
                  ? [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }]
                  : [
                      ...SEARCH_HISTORY(id, search),
                      { role: 'assistant', content: 'Filed.' },
                      { role: 'user', content: WEATHER },
                    ],
              tools: toolSearchTools(search) as unknown as Anthropic.Tool[],
            })
            .withResponse();
          const [request] = await upstream(t, id);
          equal(request?.rejected, null, `${label}: the upstream accepted it`);
          const sent = JSON.parse(request?.rawBody ?? '{}') as { tools: AnthropicTool[] };
          equal(
            sent.tools.filter((tool) => tool.defer_loading === true).length,
            147,
            `${label}: every deferred tool forwarded`,
          );
          assert(request?.tools.includes(`tool_search_tool_${search}`), `${label}: the search tool forwarded`);
          assert(request?.tools.includes('get_current_weather'), `${label}: the selected loaded tool forwarded`);
          for (const name of ['jira_create_issue', 'jira_update_issue', 'linear_create_ticket']) {
            assert(request?.tools.includes(name), `${label}: ${name} forwarded`);
          }
          const marked = sent.tools.filter((tool) => tool.cache_control !== undefined);
          equal(marked.length, 1, `${label}: one breakpoint`);
          equal(marked[0]?.defer_loading, undefined, `${label}: on a loaded tool`);
          assert(
            Number(response.headers.get('x-loopctl-tokens-saved')) < 500,
            `${label}: only removed loaded tools count: ${response.headers.get('x-loopctl-tokens-saved')}`,
          );
        }
      }
    },
  },
  {
    name: "anthropic: a client search tool's tool_reference results keep every referenced tool declared",
    async run(t) {
      const id = newId();
      const tools = [
        ...(anthropicTools(TOOLS) as AnthropicTool[]),
        {
          name: 'search_catalog',
          description: 'Search the tool catalogue',
          input_schema: { type: 'object', properties: { q: { type: 'string' } } },
        },
      ];
      await anthropic(t).messages.create({
        model: 'scripted',
        max_tokens: 256,
        messages: [
          { role: 'user', content: 'Clean up my music and the old design files' },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_s1', name: 'search_catalog', input: { q: 'playlist, design file' } },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_s1',
                content: [
                  { type: 'tool_reference', tool_name: FAR },
                  { type: 'tool_reference', tool_name: 'figma_delete_design_file' },
                ],
              },
            ],
          },
          { role: 'assistant', content: 'Found them.' },
          { role: 'user', content: `${WEATHER} [[id:${id}]]` },
        ] as unknown as Anthropic.MessageParam[],
        tools: tools as unknown as Anthropic.Tool[],
      });
      const [request] = await upstream(t, id);
      equal(request?.rejected, null, 'the upstream accepted every tool_reference');
      for (const name of [FAR, 'figma_delete_design_file', 'search_catalog', 'get_current_weather']) {
        assert(request?.tools.includes(name), `${name} declared: ${request?.tools.join(', ')}`);
      }
      assert((request?.tools.length ?? 0) < 150, 'still narrowed');
    },
  },
  {
    name: 'anthropic: typed entries without a name (mcp_toolset) are valid and forwarded as they are',
    async run(t) {
      const id = newId();
      const toolset = { type: 'mcp_toolset', mcp_server_name: 'github' };
      const client = recording(t.api);
      const small = [toolset, ...(anthropicTools(TOOLS.slice(0, 4)) as AnthropicTool[])];
      await anthropic(t, t.api, client.fetch).messages.create({
        model: 'scripted',
        max_tokens: 64,
        messages: [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }],
        tools: small as unknown as Anthropic.Tool[],
      });
      const wide = [toolset, ...(anthropicTools(TOOLS) as AnthropicTool[])];
      await anthropic(t, t.api, client.fetch).messages.create({
        model: 'scripted',
        max_tokens: 64,
        messages: [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }],
        tools: wide as unknown as Anthropic.Tool[],
      });
      const [few, many] = await upstream(t, id);
      equal(few?.rawBody, client.bodies[0], 'five tools: untouched');
      const sent = JSON.parse(many?.rawBody ?? '{}') as { tools: AnthropicTool[] };
      equal(
        JSON.stringify(sent.tools.find((tool) => tool.type === 'mcp_toolset')),
        JSON.stringify(toolset),
        'the toolset entry forwarded as it is',
      );
      assert((many?.tools.length ?? 0) < 150, 'the rest narrowed');
    },
  },
  {
    name: "openai: tool_choice allowed_tools keeps the whole tools array (the cache's point)",
    async run(t) {
      const id = newId();
      const client = recording(t.api);
      const { response } = await openai(t, t.api, client.fetch)
        .chat.completions.create({
          model: 'scripted',
          messages: [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }],
          tools: openAITools(TOOLS),
          tool_choice: {
            type: 'allowed_tools',
            allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'get_current_weather' } }] },
          },
        } as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming)
        .withResponse();
      const [request] = await upstream(t, id);
      equal(request?.rawBody, client.bodies[0], 'byte-identical');
      equal(response.headers.get('x-loopctl-skipped'), 'allowed-tools', 'skipped: allowed-tools');
    },
  },
  {
    name: 'openai: a tool the selection left out is found by the proxy and called within one request; the next request declares it',
    async run(t) {
      const id = newId();
      const sdk = openai(t, t.api, t.api.fetch, { 'x-loopctl-k': '2' });
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
        { role: 'system', content: NEED },
        { role: 'user', content: `${WEATHER} [[id:${id}]]` },
      ];
      const { data, response } = await sdk.chat.completions
        .create({ model: 'scripted', messages, tools: openAITools(TOOLS) })
        .withResponse();
      const call = data.choices[0]?.message.tool_calls?.[0] as
        | OpenAI.Chat.ChatCompletionMessageFunctionToolCall
        | undefined;
      equal(call?.function.name, FAR, 'the client gets a call of its own tool');
      equal(JSON.parse(call?.function.arguments ?? '{}').city, 'Oslo', 'with the arguments');
      equal(data.choices[0]?.finish_reason, 'tool_calls', 'finish_reason');
      const rounds = await upstream(t, id);
      assert(rounds.length >= 2, `the proxy continued the request upstream: ${rounds.length} rounds`);
      equal(response.headers.get('x-loopctl-search-rounds'), String(rounds.length), 'x-loopctl-search-rounds');
      assert(!rounds[0]!.tools.includes(FAR), 'not selected at first');
      equal(rounds[0]!.tools[0], 'find_tools', 'the search tool offered');
      assert(rounds.at(-1)!.tools.includes(FAR), 'declared once found (per-message policy)');
      for (const round of rounds) equal(round.rejected, null, `round ${round.index} valid`);
      equal(
        data.usage?.prompt_tokens,
        rounds.reduce((sum, round) => sum + reported(round), 0),
        'usage summed over the rounds',
      );
      // The next request: the call is in the conversation, so the tool is declared from it.
      const next = newId();
      await sdk.chat.completions.create({
        model: 'scripted',
        messages: [
          { role: 'user', content: `${WEATHER} [[id:${next}]]` },
          { role: 'assistant', content: null, tool_calls: [call as OpenAI.Chat.ChatCompletionMessageToolCall] },
          { role: 'tool', tool_call_id: call?.id ?? '', content: 'deleted' },
        ],
        tools: openAITools(TOOLS),
      });
      const [following] = await upstream(t, next);
      assert(following?.tools.includes(FAR), 'recovered from the conversation: declared');
      equal(following?.rejected, null, 'valid');
    },
  },
  {
    name: 'openai stream: the search rounds reach the client as one completion (text, one call, usage, [DONE])',
    async run(t) {
      const id = newId();
      const stream = await openai(t, t.api, t.api.fetch, { 'x-loopctl-k': '2' }).chat.completions.create({
        model: 'scripted',
        messages: [
          { role: 'system', content: NEED },
          { role: 'user', content: `${WEATHER} [[id:${id}]]` },
        ],
        tools: openAITools(TOOLS),
        stream: true,
        stream_options: { include_usage: true },
      });
      const names: string[] = [];
      const ids = new Set<string>();
      let args = '';
      let finish: string | null = null;
      let usage: number | undefined;
      for await (const chunk of stream) {
        ids.add(chunk.id);
        for (const part of chunk.choices[0]?.delta.tool_calls ?? []) {
          if (part.function?.name) names.push(part.function.name);
          args += part.function?.arguments ?? '';
        }
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage.prompt_tokens;
      }
      equal(names.join(), FAR, 'one call, of the client tool');
      equal(JSON.parse(args).city, 'Oslo', 'its arguments');
      equal(finish, 'tool_calls', 'finish_reason');
      equal(ids.size, 1, 'one completion id');
      const rounds = await upstream(t, id);
      assert(rounds.length >= 2, 'continued upstream');
      equal(
        usage,
        rounds.reduce((sum, round) => sum + reported(round), 0),
        'usage summed',
      );
    },
  },
  {
    name: 'anthropic with a cached prefix (stable policy): found tools are called through call_tool, the client sees its own tool, the next request forwards the same tools bytes',
    async run(t) {
      const id = newId();
      const sdk = anthropic(t, t.api, t.api.fetch, { 'x-loopctl-k': '2' });
      const system = [{ type: 'text' as const, text: NEED, cache_control: { type: 'ephemeral' as const } }];
      const first: Anthropic.MessageParam[] = [{ role: 'user', content: `${WEATHER} [[id:${id}]]` }];
      const { data, response } = await sdk.messages
        .create({
          model: 'scripted',
          max_tokens: 256,
          system,
          messages: first,
          tools: anthropicTools(TOOLS) as Anthropic.Tool[],
        })
        .withResponse();
      equal(response.headers.get('x-loopctl-policy'), 'stable', 'a breakpoint makes auto stable');
      const use = data.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock | undefined;
      equal(use?.name, FAR, 'the client gets a call of its own tool');
      equal((use?.input as { city?: string } | undefined)?.city, 'Oslo', 'with the arguments');
      equal(data.stop_reason, 'tool_use', 'stop_reason');
      const rounds = await upstream(t, id);
      assert(rounds.length >= 3, `search, then call_tool: ${rounds.length} rounds`);
      const toolsText = (request: UpstreamRequest): string =>
        JSON.stringify((JSON.parse(request.rawBody) as { tools: unknown }).tools);
      for (const round of rounds) {
        equal(toolsText(round), toolsText(rounds[0]!), `round ${round.index}: the same tools`);
        equal(round.rejected, null, `round ${round.index} valid`);
      }
      assert(!rounds[0]!.tools.includes(FAR), 'never declared');
      assert(rounds[0]!.tools.includes('call_tool'), 'the call tool offered');
      equal(
        data.usage.input_tokens,
        rounds.reduce((sum, round) => sum + reported(round), 0),
        'usage summed',
      );
      // The next request of the conversation: the same tools bytes, the call rewritten into call_tool form.
      const next: Anthropic.MessageParam[] = [
        ...first,
        { role: 'assistant', content: data.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.id ?? '', content: 'deleted' }] },
        { role: 'user', content: 'Thanks [[scenario:text]]' },
      ];
      const reply = await sdk.messages.create({
        model: 'scripted',
        max_tokens: 256,
        system,
        messages: next,
        tools: anthropicTools(TOOLS) as Anthropic.Tool[],
      });
      equal(reply.content[0]?.type, 'text', 'answered');
      const all = await upstream(t, id);
      const following = all.at(-1)!;
      equal(toolsText(following), toolsText(rounds[0]!), 'the same tools bytes across the conversation');
      equal(following.rejected, null, 'valid');
      const history = (JSON.parse(following.rawBody) as { messages: { content: unknown }[] }).messages[1]?.content as {
        name?: string;
        input?: unknown;
      }[];
      const rewritten = history.find((block) => (block as { type?: string }).type === 'tool_use');
      equal(rewritten?.name, 'call_tool', 'the earlier call reads as the model made it');
      equal(
        JSON.stringify(rewritten?.input),
        JSON.stringify({ name: FAR, arguments: { city: 'Oslo' } }),
        'with the tool and its arguments',
      );

      // The same through messages.stream.
      const streamId = newId();
      const stream = sdk.messages.stream({
        model: 'scripted',
        max_tokens: 256,
        system,
        messages: [{ role: 'user', content: `${WEATHER} [[id:${streamId}]]` }],
        tools: anthropicTools(TOOLS) as Anthropic.Tool[],
      });
      const final = await stream.finalMessage();
      const streamed = final.content.filter((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock[];
      equal(streamed.map((block) => block.name).join(), FAR, 'streamed: one call of the client tool');
      equal((streamed[0]?.input as { city?: string } | undefined)?.city, 'Oslo', 'streamed: its arguments');
      equal(final.stop_reason, 'tool_use', 'streamed: stop_reason');
      const streamRounds = await upstream(t, streamId);
      equal(
        final.usage.input_tokens,
        streamRounds.reduce((sum, round) => sum + reported(round), 0),
        'streamed: usage summed',
      );
    },
  },
  {
    name: 'stable policy, long conversation: the latest message selects tools that ride after the last message, called with no search round; the prefix is untouched',
    async run(t) {
      const id = newId();
      const long = 'status record value '.repeat(22_000); // a tool result of ~66k tokens
      const system = [{ type: 'text' as const, text: NEED, cache_control: { type: 'ephemeral' as const } }];
      const client = recording(t.api);
      const messages: Anthropic.MessageParam[] = [
        { role: 'user', content: `${WEATHER} [[id:${id}]]` },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_w1', name: 'get_current_weather', input: { city: 'Oslo' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_w1', content: long, cache_control: { type: 'ephemeral' } },
          ],
        },
        { role: 'assistant', content: 'It is sunny.' },
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: 'Now delete my old Spotify playlist, the road trip one.',
              cache_control: { type: 'ephemeral' },
            },
          ],
        },
      ];
      const { data, response } = await anthropic(t, t.api, client.fetch, { 'x-loopctl-k': '2' })
        .messages.create({
          model: 'scripted',
          max_tokens: 256,
          system,
          messages,
          tools: anthropicTools(TOOLS) as Anthropic.Tool[],
        })
        .withResponse();
      equal(response.headers.get('x-loopctl-policy'), 'stable', 'stable');
      assert(
        Number(response.headers.get('x-loopctl-revealed')) >= 1,
        `tools revealed at the tail: ${response.headers.get('x-loopctl-revealed')}`,
      );
      const use = data.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock | undefined;
      equal(use?.name, FAR, 'the client gets a call of its own tool');
      const rounds = await upstream(t, id);
      equal(rounds.length, 1, 'no search round');
      assert(!rounds[0]!.tools.includes(FAR), 'the tool is not declared');
      const sent = JSON.parse(rounds[0]!.rawBody) as { messages: { content: { type: string; text?: string }[] }[] };
      const sentLast = sent.messages.at(-1)!.content;
      const clientLast = (JSON.parse(client.bodies[0] as string) as typeof sent).messages.at(-1)!.content;
      equal(
        JSON.stringify(sentLast.slice(0, clientLast.length)),
        JSON.stringify(clientLast),
        "the client's last message, breakpoint included, as it was",
      );
      assert(sentLast.at(-1)?.text?.includes(`"name":"${FAR}"`), 'the revealed tools follow it');
      equal(
        JSON.stringify(sent.messages.slice(0, -1)),
        JSON.stringify((JSON.parse(client.bodies[0] as string) as typeof sent).messages.slice(0, -1)),
        'every earlier message untouched',
      );

      // Chat Completions: after tool results, the list is a message of its own.
      const chatId = newId();
      const chat = recording(t.api);
      await openai(t, t.api, chat.fetch, { 'x-loopctl-k': '2', 'x-loopctl-policy': 'stable' }).chat.completions.create({
        model: 'scripted',
        messages: [
          { role: 'system', content: NEED },
          { role: 'user', content: `${WEATHER} [[id:${chatId}]]` },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_w1', type: 'function', function: { name: 'get_current_weather', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_w1', content: long },
          { role: 'user', content: 'Now delete my old Spotify playlist, the road trip one.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_w2', type: 'function', function: { name: 'get_current_weather', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_w2', content: 'sunny' },
        ],
        tools: openAITools(TOOLS),
      });
      const [chatRound] = await upstream(t, chatId);
      const chatSent = JSON.parse(chatRound!.rawBody) as { messages: { role: string; content: unknown }[] };
      const chatClient = JSON.parse(chat.bodies[0] as string) as typeof chatSent;
      equal(chatSent.messages.length, chatClient.messages.length + 1, 'one message more');
      equal(
        JSON.stringify(chatSent.messages.slice(0, -1)),
        JSON.stringify(chatClient.messages),
        'the client messages as they were',
      );
      equal(chatSent.messages.at(-1)?.role, 'user', 'the list as a message of its own');
      equal(chatRound?.rejected, null, 'valid');
    },
  },
  {
    name: 'responses: POST /v1/responses selects, keeps called tools, and searches (create and stream)',
    async run(t) {
      const id = newId();
      const sdk = openai(t, t.api, t.api.fetch, { 'x-loopctl-k': '2' });
      const plain = await sdk.responses.create({
        model: 'scripted',
        input: `${WEATHER} [[id:${id}]]`,
        tools: responsesTools(),
      });
      equal(plain.output_text, 'Hello from the upstream.', 'answered');
      const [narrowed] = await upstream(t, id);
      assert(
        // k = 2, the search tool, and the links budget at its most (it grows with the prompt's
        // parts): the prompt's random id makes the second pick vary, and a pick that needs a
        // lookup (an event's id) brings its provider.
        narrowed!.tools.length <= 3 + partBudget(LINK_DEFAULTS.budget, Number.POSITIVE_INFINITY) &&
          narrowed!.tools.includes('get_current_weather'),
        `narrowed: ${narrowed?.tools.join(', ')}`,
      );
      const searchId = newId();
      const found = await sdk.responses.create({
        model: 'scripted',
        instructions: NEED,
        input: `${WEATHER} [[id:${searchId}]]`,
        tools: responsesTools(),
      });
      const call = found.output.find((item) => item.type === 'function_call') as
        | OpenAI.Responses.ResponseFunctionToolCall
        | undefined;
      equal(call?.name, FAR, 'a call of the client tool');
      const rounds = await upstream(t, searchId);
      assert(rounds.length >= 2, 'continued upstream');
      for (const round of rounds) equal(round.rejected, null, `round ${round.index} valid`);
      // The next request keeps the called tool declared.
      const nextId = newId();
      await sdk.responses.create({
        model: 'scripted',
        input: [
          { role: 'user', content: `${WEATHER} [[id:${nextId}]]` },
          { type: 'function_call', call_id: call?.call_id ?? '', name: FAR, arguments: call?.arguments ?? '{}' },
          { type: 'function_call_output', call_id: call?.call_id ?? '', output: 'deleted' },
        ],
        tools: responsesTools(),
      });
      assert((await upstream(t, nextId))[0]?.tools.includes(FAR), 'declared from the conversation');
      const streamId = newId();
      const stream = sdk.responses.stream({
        model: 'scripted',
        instructions: NEED,
        input: `${WEATHER} [[id:${streamId}]]`,
        tools: responsesTools(),
      });
      const final = await stream.finalResponse();
      const streamed = final.output.filter(
        (item) => item.type === 'function_call',
      ) as OpenAI.Responses.ResponseFunctionToolCall[];
      equal(streamed.map((item) => item.name).join(), FAR, 'streamed: one call of the client tool');
      equal(JSON.parse(streamed[0]?.arguments ?? '{}').city, 'Oslo', 'streamed: its arguments');
      const streamRounds = await upstream(t, streamId);
      equal(
        final.usage?.input_tokens,
        streamRounds.reduce((sum, round) => sum + reported(round), 0),
        'streamed: usage summed',
      );
    },
  },
  {
    name: 'a prompt in a script the selector cannot read: every tool is forwarded, the weather tool with them, and the response says why',
    async run(t) {
      const id = newId();
      const { response } = await openai(t)
        .chat.completions.create({
          model: 'scripted',
          messages: [
            // The marker rides the system prompt: selection reads only the user's words.
            { role: 'system', content: `[[id:${id}]]` },
            { role: 'user', content: '東京の今の天気は？' },
          ],
          tools: openAITools(TOOLS),
        })
        .withResponse();
      const [request] = await upstream(t, id);
      assert(
        request?.tools.includes('get_current_weather'),
        `the weather tool forwarded: ${request?.tools.slice(0, 10).join(', ')}`,
      );
      equal(request?.tools.length, TOOLS.length, 'every tool, none of them invented');
      assert((response.headers.get('x-loopctl-fell-open') ?? '') !== '', 'x-loopctl-fell-open says why');
    },
  },
  {
    name: 'a silent upstream: 504 in the provider shape after the first-byte timeout; a stream gets keep-alive comments, then an error event',
    async run(t) {
      const slow = t.slow;
      const id = newId();
      const openaiError = await rejects(
        openai(t, slow).chat.completions.create({
          model: 'scripted',
          messages: [{ role: 'user', content: `[[scenario:hang]] hi [[id:${id}]]` }],
        }),
      );
      equal(openaiError.status, 504, 'openai status');
      equal(openaiError.code, 'upstream_timeout', 'openai code');
      const anthropicError = await rejects(
        anthropic(t, slow).messages.create({
          model: 'scripted',
          max_tokens: 8,
          messages: [{ role: 'user', content: `[[scenario:hang]] hi [[id:${id}]]` }],
        }),
      );
      equal(anthropicError.status, 504, 'anthropic status');
      equal((anthropicError.error as { error: { type: string } }).error.type, 'timeout_error', 'anthropic type');
      const raw = await slow.fetch(`${slow.baseURL}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'scripted',
          stream: true,
          messages: [{ role: 'user', content: `[[scenario:hang]] hi [[id:${id}]]` }],
        }),
      });
      equal(raw.status, 200, 'the stream began');
      const text = await raw.text();
      assert(
        (text.match(/^: keep-alive$/gm) ?? []).length >= 2,
        `keep-alive comments while waiting: ${JSON.stringify(text.slice(0, 200))}`,
      );
      assert(
        /data: \{"error":\{"message":"the openai upstream did not begin its answer/.test(text),
        `then an error event: ${JSON.stringify(text.slice(-300))}`,
      );
      const settled = await upstream(t, id, true);
      equal(settled.length, 3, 'three upstream requests');
      for (const request of settled) equal(request.outcome, 'client-closed', 'each upstream request was cancelled');
    },
  },
  {
    name: 'a slow upstream: a stream gets keep-alive comments until the answer begins, then the answer (real clients)',
    async run(t) {
      const slow = t.slow;
      const id = newId();
      const stream = await openai(t, slow).chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: `[[scenario:slow-start]] hi [[id:${id}]]` }],
        stream: true,
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      equal(text, 'Hello from the upstream.', 'openai stream text');
      const message = await anthropic(t, slow)
        .messages.stream({
          model: 'scripted',
          max_tokens: 8,
          messages: [{ role: 'user', content: `[[scenario:slow-start]] hi [[id:${id}]]` }],
        })
        .finalMessage();
      equal(
        message.content[0]?.type === 'text' ? message.content[0].text : '',
        'Hello from the upstream.',
        'anthropic stream text',
      );
      const raw = await slow.fetch(`${slow.baseURL}/v1/messages`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.token}`,
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
        },
        body: JSON.stringify({
          model: 'scripted',
          max_tokens: 8,
          stream: true,
          messages: [{ role: 'user', content: `[[scenario:slow-start]] hi [[id:${id}]]` }],
        }),
      });
      const body = await raw.text();
      assert(body.startsWith(': keep-alive\n\n'), 'keep-alive first');
      assert(body.includes('event: message_stop'), 'then the whole answer');
    },
  },
];
