/**
 * Gemini's Interactions API on the wire (`POST …/{version}/interactions`), as `@google/genai`
 * 3.6.1 calls it: the Interaction JSON (`status`, `steps`, `usage`), its SSE events
 * (`interaction.created`, `step.start` / `step.delta` / `step.stop`, `interaction.completed`),
 * Google's error body, and strict request validation with Tool Retrieval (preview since
 * 2026-11-19): functions with `defer_loading: true`, at most one `tool_search`, a client-executed
 * search's `tool_search_call` answered by a `tool_search_result` step whose functions the model
 * can then call. The history comes as input steps (`store: false`), or from a stored interaction
 * named by `previous_interaction_id` (`store` is on by default), as the API keeps it.
 */
import { flaggedTools, type RequestSurface, surface } from './deferred-tools.js';
import type { RecordedRequest } from './types.js';
import type { Plan, WireEvent } from './wire-plan.js';
import { CREATED, isObject } from './wire-plan.js';

type Step = Record<string, unknown>;

/** A function's name as Gemini takes it: a letter or underscore, then letters, digits, `_ . : -`; at most 128. */
export const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/;

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'document', 'video']);
const CREATED_AT = new Date(CREATED * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

/** The surface of an Interactions body: its functions, and those a `tool_search_result` step loaded. */
export function geminiSurface(body: Record<string, unknown>): RequestSurface {
  const { tools, clientSearch } = flaggedTools(body);
  const loaded = new Set<string>();
  for (const step of Array.isArray(body.input) ? body.input : []) {
    if (!isObject(step) || step.type !== 'tool_search_result' || !Array.isArray(step.result)) continue;
    for (const fn of step.result) if (isObject(fn) && typeof fn.name === 'string') loaded.add(fn.name);
  }
  return surface(tools, loaded, undefined, clientSearch);
}

/** The steps a plan becomes: the text as one `model_output`, then the calls in order. */
export function outputSteps(plan: Plan): Step[] {
  const steps: Step[] = [];
  if (plan.text !== '') steps.push({ type: 'model_output', content: [{ type: 'text', text: plan.text }] });
  plan.calls.forEach((call, i) => {
    if (call.kind === 'tool_search')
      steps.push({ type: 'tool_search_call', id: call.id || `ts_${i}`, arguments: parseArgs(call.args) });
    else
      steps.push({
        type: 'function_call',
        id: call.id || `call_${i}`,
        name: call.name,
        arguments: parseArgs(call.args),
      });
  });
  return steps;
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args === '' ? '{}' : args);
  } catch {
    return {};
  }
}

/** `requires_action` while calls wait for the client, `incomplete` when cut short, else `completed`. */
function status(plan: Plan): string {
  if (plan.finishReason === 'length' || plan.finishReason === 'max_output_tokens') return 'incomplete';
  if (plan.finishReason !== undefined) return plan.finishReason;
  return plan.calls.length > 0 ? 'requires_action' : 'completed';
}

function usage(plan: Plan): Record<string, number> | undefined {
  if (!plan.usage) return undefined;
  const { inputTokens, outputTokens } = plan.usage;
  return {
    total_input_tokens: inputTokens,
    total_output_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
  };
}

function interaction(plan: Plan, model: string, request: RecordedRequest, final: boolean): Record<string, unknown> {
  const used = final ? usage(plan) : undefined;
  return {
    id: `int_scripted_${request.index}`,
    object: 'interaction',
    model,
    status: final ? status(plan) : 'in_progress',
    created: CREATED_AT,
    updated: CREATED_AT,
    ...(used ? { usage: used } : {}),
  };
}

/** The non-streamed answer: the Interaction with this turn's steps. */
export function geminiJson(plan: Plan, model: string, request: RecordedRequest): Record<string, unknown> {
  return { ...interaction(plan, model, request, true), steps: outputSteps(plan) };
}

/** The streamed answer: each step opened, filled by deltas (text, argument fragments), and closed. */
export function geminiEvents(plan: Plan, model: string, request: RecordedRequest): WireEvent[] {
  const events: WireEvent[] = [];
  const event = (type: string, data: Record<string, unknown>): void => {
    events.push({ event: type, data: { event_type: type, event_id: `evt_${events.length}`, ...data } });
  };
  event('interaction.created', { interaction: interaction(plan, model, request, false) });
  outputSteps(plan).forEach((step, index) => {
    if (step.type === 'model_output') {
      event('step.start', { index, step: { type: 'model_output', content: [] } });
      for (const text of plan.textChunks) event('step.delta', { index, delta: { type: 'text', text } });
    } else if (step.type === 'function_call') {
      const call = plan.calls.find((c, i) => (c.id || `call_${i}`) === step.id);
      event('step.start', { index, step: { ...step, arguments: {} } });
      for (const fragment of call?.fragments ?? [JSON.stringify(step.arguments)])
        event('step.delta', { index, delta: { type: 'arguments_delta', arguments: fragment } });
    } else {
      event('step.start', { index, step: { ...step, arguments: {} } });
      event('step.delta', { index, delta: { type: 'tool_search_call', arguments: step.arguments } });
    }
    event('step.stop', { index });
  });
  event('interaction.completed', { interaction: interaction(plan, model, request, true) });
  return events;
}

/** The in-stream error event. */
export function geminiStreamError(message: string, code: string): WireEvent {
  return { event: 'error', data: { event_type: 'error', error: { code, message } } };
}

/** Google's canonical status for an HTTP status. */
export function googleStatus(httpStatus: number): string {
  const known: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    429: 'RESOURCE_EXHAUSTED',
    500: 'INTERNAL',
    503: 'UNAVAILABLE',
  };
  return known[httpStatus] ?? (httpStatus >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

/**
 * What `store` keeps on the server: each stored interaction's whole history as steps (its input,
 * then the model's steps), so a request naming it as `previous_interaction_id` goes on from there.
 */
export class InteractionHistory {
  readonly #steps = new Map<string, unknown[]>();

  /** The body with the previous interaction's steps before its own input; `missing` for an unknown id. */
  expand(body: Record<string, unknown>): Record<string, unknown> | { readonly missing: string } {
    const previous = body.previous_interaction_id;
    if (previous === undefined) return body;
    const before = typeof previous === 'string' ? this.#steps.get(previous) : undefined;
    if (!before) return { missing: `Interaction ${String(previous)} was not found.` };
    const { previous_interaction_id: _, ...rest } = body;
    return { ...rest, input: [...before, ...asSteps(body.input)] };
  }

  /** Keep an answered interaction (unless the request said `store: false`). */
  remember(id: string, body: Record<string, unknown>, output: readonly Step[]): void {
    if (body.store !== false) this.#steps.set(id, [...asSteps(body.input), ...output]);
  }
}

/** Any input as steps: text or contents are the user's turn; steps stay as they are. */
function asSteps(input: unknown): unknown[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ type: 'user_input', content: [{ type: 'text', text: input }] }];
  if (!Array.isArray(input)) return [{ type: 'user_input', content: [input] }];
  const contents = input.every((item) => isObject(item) && CONTENT_TYPES.has(String(item.type)));
  return contents && input.length > 0 ? [{ type: 'user_input', content: input }] : input;
}

/** What the Interactions API rejects with a 400. */
export function validateGemini(body: Record<string, unknown>): string | undefined {
  if (typeof body.model !== 'string' || body.model === '') return '* CreateInteraction: model is required';
  if (body.input === undefined) return '* CreateInteraction: input is required';
  const tools = validateTools(body.tools);
  if (typeof tools === 'string') return tools;
  if (typeof body.input === 'string') return undefined;
  if (isObject(body.input))
    return CONTENT_TYPES.has(String(body.input.type)) ? undefined : 'input: unknown content type';
  if (!Array.isArray(body.input)) return 'input: expected a string, content, or a list of contents or steps';
  return validateSteps(body.input, tools);
}

interface DeclaredTools {
  readonly functions: ReadonlySet<string>;
  readonly deferred: ReadonlySet<string>;
  readonly clientSearch: boolean;
}

function validateTools(tools: unknown): DeclaredTools | string {
  const functions = new Set<string>();
  const deferred = new Set<string>();
  let searches = 0;
  let clientSearch = false;
  if (tools === undefined) return { functions, deferred, clientSearch };
  if (!Array.isArray(tools)) return 'tools: expected a list of tools';
  for (const [i, tool] of tools.entries()) {
    if (!isObject(tool) || typeof tool.type !== 'string') return `tools[${i}].type is required`;
    if (tool.type === 'function') {
      if (typeof tool.name !== 'string' || !GEMINI_NAME.test(tool.name))
        return `tools[${i}].name: Invalid function name. Must start with a letter or an underscore and contain only a-z, A-Z, 0-9, underscores, dots, colons and dashes, at most 128 characters.`;
      if (functions.has(tool.name)) return `tools[${i}]: duplicate function name ${tool.name}`;
      functions.add(tool.name);
      if (tool.parameters !== undefined && !isObject(tool.parameters))
        return `tools[${i}].parameters: expected an object`;
      if (tool.defer_loading !== undefined && typeof tool.defer_loading !== 'boolean')
        return `tools[${i}].defer_loading: expected a boolean`;
      if (tool.defer_loading === true) deferred.add(tool.name);
    } else if (tool.type === 'tool_search') {
      searches++;
      if (tool.execution !== undefined && tool.execution !== 'server' && tool.execution !== 'client')
        return `tools[${i}].execution: expected "server" or "client"`;
      clientSearch = tool.execution === 'client';
      if (!clientSearch && (tool.name !== undefined || tool.description !== undefined || tool.parameters !== undefined))
        return `tools[${i}]: name, description and parameters are set only for client-side execution`;
      if (tool.parameters !== undefined && !isObject(tool.parameters))
        return `tools[${i}].parameters: expected an object`;
    }
  }
  if (searches > 1) return 'tools: at most one tool_search tool is allowed';
  if (deferred.size > 0 && searches === 0) return 'tools: functions with defer_loading require a tool_search tool';
  return { functions, deferred, clientSearch };
}

/** The history as steps: every call answered, results after their calls, no call to an unloaded deferred function. */
function validateSteps(input: unknown[], tools: DeclaredTools): string | undefined {
  const calls = new Set<string>();
  const searches = new Set<string>();
  const answered = new Set<string>();
  const loaded = new Set<string>();
  for (const [i, step] of input.entries()) {
    if (!isObject(step) || typeof step.type !== 'string') return `input[${i}].type is required`;
    if (step.type === 'function_call') {
      if (typeof step.id !== 'string' || step.id === '') return `input[${i}].id is required`;
      if (typeof step.name !== 'string' || step.name === '') return `input[${i}].name is required`;
      if (!isObject(step.arguments)) return `input[${i}].arguments: expected an object`;
      if (tools.deferred.has(step.name) && !loaded.has(step.name))
        return `input[${i}]: function ${step.name} is deferred and was not loaded by a tool search before this call`;
      calls.add(step.id);
    } else if (step.type === 'function_result') {
      if (typeof step.call_id !== 'string' || !calls.has(step.call_id))
        return `input[${i}].call_id: no function_call with id ${String(step.call_id)} before this result`;
      if (step.result === undefined) return `input[${i}].result is required`;
      answered.add(step.call_id);
    } else if (step.type === 'tool_search_call') {
      if (typeof step.id !== 'string' || step.id === '') return `input[${i}].id is required`;
      searches.add(step.id);
    } else if (step.type === 'tool_search_result') {
      if (typeof step.call_id !== 'string' || !searches.has(step.call_id))
        return `input[${i}].call_id: no tool_search_call with id ${String(step.call_id)} before this result`;
      if (!tools.clientSearch) return `input[${i}]: a tool_search_result needs a tool_search with execution "client"`;
      if (!Array.isArray(step.result)) return `input[${i}].result: expected a list of functions`;
      for (const [j, fn] of step.result.entries()) {
        if (!isObject(fn) || fn.type !== 'function' || typeof fn.name !== 'string' || !GEMINI_NAME.test(fn.name))
          return `input[${i}].result[${j}]: expected a function with a valid name`;
        loaded.add(fn.name);
      }
      answered.add(step.call_id);
    }
  }
  for (const id of [...calls, ...searches]) if (!answered.has(id)) return `input: the call ${id} has no result`;
  return undefined;
}
