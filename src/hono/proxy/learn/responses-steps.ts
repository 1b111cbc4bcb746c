/**
 * The learning steps of an OpenAI Responses body: a string `input` is one prompt; in a list, a
 * user `message` with text is a prompt, a `function_call` a call and a `function_call_output`
 * its result (by `call_id`).
 */
import type { Json } from '../json-value.js';
import { isObject } from '../json-value.js';
import { clipQuery, textOf } from '../latest-user-text.js';
import type { ExampleStep } from './example-steps.js';
import { calledName, resultIsError } from './example-steps.js';

/**
 * The steps of a Responses conversation.
 *
 * @example
 * responsesSteps({ input: 'Weather?' }) // [{ kind: 'prompt', text: 'Weather?', … }]
 */
export function responsesSteps(body: Readonly<Json>): ExampleStep[] {
  const items: unknown[] =
    typeof body.input === 'string'
      ? [{ role: 'user', content: body.input }]
      : Array.isArray(body.input)
        ? body.input
        : [];
  const steps: ExampleStep[] = [];
  for (const raw of items) {
    if (!isObject(raw)) continue;
    const type = raw.type ?? 'message';
    const text = type === 'message' ? textOf(raw.content) : '';
    if (type === 'message' && raw.role === 'user' && text.trim() !== '')
      steps.push({ kind: 'prompt', text: clipQuery(text), raw });
    else if (type === 'function_call' && typeof raw.name === 'string')
      steps.push({ kind: 'call', id: String(raw.call_id ?? ''), name: calledName(raw.name, raw.arguments), raw });
    else if (type === 'function_call_output') {
      const output = typeof raw.output === 'string' ? raw.output : textOf(raw.output);
      steps.push({ kind: 'result', id: String(raw.call_id ?? ''), error: resultIsError(output), raw });
    } else steps.push({ kind: 'other', raw });
  }
  return steps;
}
