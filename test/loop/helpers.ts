/**
 * Shared fixtures for the loop tests: a scripted model server per test file, real clients
 * pointed at it over loopback HTTP, a small registry, and helpers to read a run's events.
 * The server is the only stand-in: every request goes through `fetch` as with a provider.
 *
 * @example
 * const server = useScriptedServer()
 * const loop = new BareLoop({ client: openAI(server.current), registry: toolbox().registry })
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { LoopRun } from '../../src/loop/bare-loop.js';
import type { LoopEvent, LoopEventType } from '../../src/loop/events.js';
import { type AnthropicMessagesOptions, anthropicMessagesClient } from '../../src/model/anthropic-messages.js';
import type { ModelClient } from '../../src/model/client.js';
import { type OpenAIChatOptions, openAIChatClient } from '../../src/model/openai-chat.js';
import { type OpenAIResponsesOptions, openAIResponsesClient } from '../../src/model/openai-responses.js';
import { type ToolHandler, ToolRegistry } from '../../src/registry/registry.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import type { AsyncToolSelector, SelectionContext, ToolSelector } from '../../src/select/selector.js';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from '../support/scripted-model-server.js';

/** Fast retries: tests never wait on real backoff. */
export const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 50, jitter: 0 } as const;

/**
 * Start one scripted server for the file; after each test, check every queued reply was
 * used and reset. `current` is valid inside tests.
 */
export function useScriptedServer(options: ScriptedModelServerOptions = {}): { readonly current: ScriptedModelServer } {
  const holder: { current: ScriptedModelServer } = { current: undefined as unknown as ScriptedModelServer };
  beforeAll(async () => {
    holder.current = await startScriptedModelServer(options);
  });
  afterEach(() => {
    const pending = holder.current.pending;
    holder.current.reset(); // first, so one failing test cannot hand its replies to the next
    expect(pending, 'every queued reply was used').toBe(0);
  });
  afterAll(() => holder.current.close());
  return holder;
}

export function openAI(server: ScriptedModelServer, options: Partial<OpenAIChatOptions> = {}): ModelClient {
  return openAIChatClient({
    baseURL: server.openAIBaseURL,
    apiKey: 'sk-test',
    model: 'scripted-model',
    retry: FAST_RETRY,
    ...options,
  });
}

export function anthropic(server: ScriptedModelServer, options: Partial<AnthropicMessagesOptions> = {}): ModelClient {
  return anthropicMessagesClient({
    baseURL: server.anthropicBaseURL,
    apiKey: 'sk-ant-test',
    model: 'scripted-claude',
    retry: FAST_RETRY,
    ...options,
  });
}

export function responses(server: ScriptedModelServer, options: Partial<OpenAIResponsesOptions> = {}): ModelClient {
  return openAIResponsesClient({
    baseURL: server.openAIBaseURL,
    apiKey: 'sk-test',
    model: 'scripted-model',
    retry: FAST_RETRY,
    ...options,
  });
}

/** Both providers, for `describe.each`. */
export const PROVIDERS = [
  { provider: 'openai' as const, make: openAI },
  { provider: 'anthropic' as const, make: anthropic },
];

export const schemas = {
  weather: {
    name: 'get_weather',
    description: 'Current weather conditions for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  search: {
    name: 'search_docs',
    description: 'Search the product documentation for a phrase.',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
  email: {
    name: 'send_email',
    description: 'Send an email message to a recipient.',
    parameters: {
      type: 'object',
      properties: { to: { type: 'string' }, body: { type: 'string' } },
      required: ['to', 'body'],
    },
  },
  order: {
    name: 'lookup_order',
    description: 'Look up an order by its number.',
    parameters: { type: 'object', properties: { number: { type: 'string' } }, required: ['number'] },
  },
} satisfies Record<string, ToolSchema>;

/** Every handler call, by tool name, with its parsed arguments. */
export type CallLog = { name: string; args: unknown }[];

/**
 * A registry of the four {@link schemas}, each handler logging its call and answering a
 * fixed string. `overrides` replaces a handler by tool name.
 */
export function toolbox(overrides: Record<string, ToolHandler> = {}): { registry: ToolRegistry; calls: CallLog } {
  const calls: CallLog = [];
  const registry = new ToolRegistry();
  const answers: Record<string, (args: any) => string> = {
    get_weather: ({ city }) => `Sunny in ${city}`,
    search_docs: ({ query }) => `3 pages match ${query}`,
    send_email: ({ to }) => `sent to ${to}`,
    lookup_order: ({ number }) => `order ${number} shipped`,
  };
  for (const schema of Object.values(schemas)) {
    const override = overrides[schema.name];
    registry.register(schema, (args, context) => {
      calls.push({ name: schema.name, args });
      return override ? override(args, context) : answers[schema.name]?.(args);
    });
  }
  return { registry, calls };
}

/** A tool schema whose description is `size` characters, for cost-sensitive tests. */
export function wideTool(name: string, size: number): ToolSchema {
  return {
    name,
    description: `${name} ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(size / 27))}`.slice(0, size),
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
  };
}

/** Every event of a run, in order. */
export async function collect(run: LoopRun): Promise<LoopEvent[]> {
  const events: LoopEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

/** The events of one type, typed. */
export function ofType<T extends LoopEventType>(
  events: readonly LoopEvent[],
  type: T,
): Extract<LoopEvent, { type: T }>[] {
  return events.filter((event): event is Extract<LoopEvent, { type: T }> => event.type === type);
}

/** The one event of a type for a turn (fails when there is not exactly one). */
export function onTurn<T extends LoopEventType>(
  events: readonly LoopEvent[],
  type: T,
  turn: number,
): Extract<LoopEvent, { type: T }> {
  const found = ofType(events, type).filter((event) => 'turn' in event && event.turn === turn);
  expect(found, `${type} events on turn ${turn}`).toHaveLength(1);
  return found[0] as Extract<LoopEvent, { type: T }>;
}

/** Event types in order, consecutive repeats collapsed (text deltas, parallel calls). */
export function shape(events: readonly LoopEvent[]): LoopEventType[] {
  const out: LoopEventType[] = [];
  for (const event of events) if (out[out.length - 1] !== event.type) out.push(event.type);
  return out;
}

/** A recorded request's parsed body. */
export function body(request: RecordedRequest | undefined): Record<string, any> {
  expect(request, 'the request was recorded').toBeDefined();
  return request?.json as Record<string, any>;
}

/** Tool names a recorded request advertised, any protocol (undefined when `tools` is absent); a Responses `tool_search` shows as `tool_search`. */
export function wireToolNames(request: RecordedRequest | undefined): string[] | undefined {
  const json = body(request);
  if (json.tools === undefined) return undefined;
  return (json.tools as any[]).map((tool) =>
    request?.provider === 'openai' ? tool.function.name : (tool.name ?? tool.type),
  );
}

/** A sync selector that records every context it is handed. */
export function recordingSelector(
  pick: (ctx: SelectionContext, all: readonly ToolSchema[]) => readonly ToolSchema[],
  name = 'recording',
): ToolSelector & { contexts: SelectionContext[] } {
  const contexts: SelectionContext[] = [];
  return {
    name,
    contexts,
    select(ctx, all) {
      contexts.push(ctx);
      return pick(ctx, all);
    },
  };
}

/** An async selector that records every context it is handed. */
export function recordingAsyncSelector(
  pick: (ctx: SelectionContext, all: readonly ToolSchema[], signal: AbortSignal) => Promise<readonly ToolSchema[]>,
  name = 'recording-async',
): AsyncToolSelector & { contexts: SelectionContext[]; signals: AbortSignal[] } {
  const contexts: SelectionContext[] = [];
  const signals: AbortSignal[] = [];
  return {
    name,
    contexts,
    signals,
    select(ctx, all, { signal }) {
      contexts.push(ctx);
      signals.push(signal);
      return pick(ctx, all, signal);
    },
  };
}

/** Select by name from the registry's list. */
export function named(all: readonly ToolSchema[], ...names: string[]): ToolSchema[] {
  return all.filter((tool) => names.includes(tool.name));
}

/** A recorded request's wire messages (Responses: input items), any protocol. */
export function wireMessages(request: RecordedRequest | undefined): any[] {
  const json = body(request);
  return (json.messages ?? json.input) as any[];
}
