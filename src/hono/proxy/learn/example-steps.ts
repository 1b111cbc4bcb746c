/**
 * A conversation as the proxy's learning reads it, whatever the wire protocol: prompts (user
 * messages with text), the model's tool calls and their results, in order. Each protocol object
 * turns its own body into these steps (`ProxyProtocol.exampleSteps`); `traffic-examples.ts` makes
 * the examples from them, so the rule "a prompt → the tools called in reply whose result is not
 * an error" is written once.
 */
import type { Json } from '../json-value.js';
import { isObject } from '../json-value.js';

/** One step of a conversation. */
export type ExampleStep =
  /** A user message with text: the start of what the calls after it answer. */
  | { readonly kind: 'prompt'; readonly text: string; readonly raw: unknown }
  /** A call the model made (`call_tool` already unwrapped to the tool it names). */
  | { readonly kind: 'call'; readonly id: string; readonly name: string; readonly raw: unknown }
  /** A call's result, and whether it reports an error. */
  | { readonly kind: 'result'; readonly id: string; readonly error: boolean; readonly raw: unknown }
  /** Anything else (system, assistant text): part of the conversation's identity only. */
  | { readonly kind: 'other'; readonly raw: unknown };

/** A protocol's reader of its own bodies (see `ProxyProtocol.exampleSteps`). */
export type ExampleStepReader = (body: Readonly<Json>) => ExampleStep[];

// Tools give no error flag on OpenAI's wires: a result that opens with one of these words, or a
// JSON object with a truthy `error` / `isError` / `is_error`, is taken for one. A false
// positive only loses an example; a false negative teaches a tool that did not serve.
const ERROR_LEAD = /^\s*(?:error|exception|traceback)\b/i;

/**
 * Whether a tool result's text reports an error.
 *
 * @example
 * resultIsError('Error: no such file') // true
 * resultIsError('{"temperature": 21}') // false
 */
export function resultIsError(text: string): boolean {
  if (ERROR_LEAD.test(text)) return true;
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return false;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isObject(value) && Boolean(value.error || value.isError || value.is_error);
  } catch {
    return false;
  }
}

// The proxy's own call tool, under any of the names it gives way with (`meta-tools.ts`).
const CALL_TOOL = /^(?:loopctl_)?call_tool(?:_\d+)?$/;

/**
 * The tool a call stands for: a call of the proxy's `call_tool` counts as the tool it names.
 *
 * @example
 * calledName('call_tool', { name: 'get_weather', arguments: {} }) // 'get_weather'
 * calledName('get_weather', { city: 'Oslo' }) // 'get_weather'
 */
export function calledName(name: string, args: unknown): string {
  if (!CALL_TOOL.test(name)) return name;
  const parsed = typeof args === 'string' ? safeParse(args) : args;
  return isObject(parsed) && typeof parsed.name === 'string' && parsed.name !== '' ? parsed.name : name;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
