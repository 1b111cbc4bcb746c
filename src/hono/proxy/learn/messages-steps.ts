/**
 * The learning steps of an Anthropic Messages body: a `user` message's text blocks are a prompt,
 * its `tool_result` blocks results (`is_error` as sent, or an error-looking text); an
 * assistant's `tool_use` blocks are calls. A tool revealed by a `tool_reference` counts once the
 * model calls it, as any other call: a reveal alone is not a use.
 */
import type { Json } from '../json-value.js';
import { isObject } from '../json-value.js';
import { clipQuery, textOf } from '../latest-user-text.js';
import type { ExampleStep } from './example-steps.js';
import { calledName, resultIsError } from './example-steps.js';

/**
 * The steps of a Messages conversation.
 *
 * @example
 * messagesSteps({ messages: [{ role: 'user', content: 'Weather?' }] }) // [{ kind: 'prompt', text: 'Weather?', … }]
 */
export function messagesSteps(body: Readonly<Json>): ExampleStep[] {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const steps: ExampleStep[] = [];
  for (const raw of messages) {
    if (!isObject(raw)) continue;
    const blocks = Array.isArray(raw.content) ? raw.content.filter(isObject) : [];
    // The message itself first (its identity), then what it holds.
    const text = textOf(raw.content);
    if (raw.role === 'user' && text.trim() !== '') steps.push({ kind: 'prompt', text: clipQuery(text), raw });
    else steps.push({ kind: 'other', raw });
    for (const block of blocks) {
      if (raw.role === 'user' && block.type === 'tool_result') {
        const error = block.is_error === true || resultIsError(textOf(block.content));
        steps.push({ kind: 'result', id: String(block.tool_use_id ?? ''), error, raw: undefined });
      } else if (raw.role === 'assistant' && block.type === 'tool_use' && typeof block.name === 'string')
        steps.push({
          kind: 'call',
          id: String(block.id ?? ''),
          name: calledName(block.name, block.input),
          raw: undefined,
        });
    }
  }
  return steps;
}
