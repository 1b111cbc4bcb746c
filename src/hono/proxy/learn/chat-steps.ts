/**
 * The learning steps of a Chat Completions body: `user` messages with text are prompts, an
 * assistant's `tool_calls` are calls, `tool` messages are results (by `tool_call_id`).
 */
import type { Json } from '../json-value.js';
import { isObject } from '../json-value.js';
import { clipQuery, textOf } from '../latest-user-text.js';
import type { ExampleStep } from './example-steps.js';
import { calledName, resultIsError } from './example-steps.js';

/**
 * The steps of a Chat Completions conversation.
 *
 * @example
 * chatSteps({ messages: [{ role: 'user', content: 'Weather?' }] }) // [{ kind: 'prompt', text: 'Weather?', … }]
 */
export function chatSteps(body: Readonly<Json>): ExampleStep[] {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const steps: ExampleStep[] = [];
  for (const raw of messages) {
    if (!isObject(raw)) continue;
    const text = textOf(raw.content);
    if (raw.role === 'user' && text.trim() !== '') steps.push({ kind: 'prompt', text: clipQuery(text), raw });
    else if (raw.role === 'tool')
      steps.push({ kind: 'result', id: String(raw.tool_call_id ?? ''), error: resultIsError(text), raw });
    else {
      steps.push({ kind: 'other', raw });
      if (raw.role !== 'assistant' || !Array.isArray(raw.tool_calls)) continue;
      for (const call of raw.tool_calls) {
        if (!isObject(call) || !isObject(call.function) || typeof call.function.name !== 'string') continue;
        const name = calledName(call.function.name, call.function.arguments);
        steps.push({ kind: 'call', id: String(call.id ?? ''), name, raw: undefined });
      }
    }
  }
  return steps;
}
