/**
 * The examples a proxied request carries: each prompt → the tools the model called in reply to
 * it (before the next prompt) whose result came back and is not an error. The client re-sends
 * the whole conversation every turn, so each example has a key, the SHA-256 of the conversation
 * up to and including its prompt: the same prompt re-sent is the same example (a store replaces
 * it, never counts it twice), and the same words in another conversation are another.
 */
import { digestHex } from '../../../digest.js';
import type { ExampleStep } from './example-steps.js';

/** One learned example from traffic. */
export interface TrafficExample {
  /** SHA-256 (hex) of the conversation up to and including the prompt: the idempotency key. */
  readonly key: string;
  /** The prompt's text (clipped as the selection query is). */
  readonly query: string;
  /** The tools that served it, in first-call order, no repeats. */
  readonly tools: readonly string[];
}

const KEY_DOMAIN = 'loopctl/traffic-example/v1';

/**
 * The examples of a conversation's steps. Only names in `tools` (the client's selectable
 * tools) count: the proxy's own `find_tools`, and calls of tools the request no longer lists,
 * teach nothing about this registry.
 *
 * @example
 * const examples = await trafficExamples('openai', chatSteps(body), new Set(['get_weather']))
 * examples[0] // { key: '3f…', query: 'Weather in Oslo?', tools: ['get_weather'] }
 */
export async function trafficExamples(
  protocol: string,
  steps: readonly ExampleStep[],
  tools: ReadonlySet<string>,
): Promise<TrafficExample[]> {
  const served = new Set<string>();
  for (const step of steps) if (step.kind === 'result' && !step.error) served.add(step.id);
  const out: TrafficExample[] = [];
  // The key chains: each prompt's key covers the previous key and the steps since, so a long
  // conversation is hashed once, not once per prompt.
  let chain = KEY_DOMAIN;
  let pending: string[] = [protocol];
  let open: { key: string; query: string; tools: string[] } | undefined;
  const close = (): void => {
    if (open && open.tools.length > 0) out.push(open);
  };
  for (const step of steps) {
    if (step.raw !== undefined) pending.push(JSON.stringify(step.raw));
    if (step.kind === 'prompt') {
      close();
      chain = await digestHex([chain, ...pending]);
      pending = [];
      open = { key: chain, query: step.text, tools: [] };
    } else if (step.kind === 'call' && open && served.has(step.id) && tools.has(step.name)) {
      if (!open.tools.includes(step.name)) open.tools.push(step.name);
    }
  }
  close();
  return out;
}
