/**
 * The sample prompts under the prompt box. The demo registry has hand-written ones; a user's
 * own tools file gets prompts drawn from its tools, so a sample never points at a tool the page
 * no longer has.
 */
import type { ToolSchema } from '../src/index.js';

/** Prompts for the demo registry (demo/demo-tools.ts). */
export const DEMO_SAMPLES: readonly string[] = [
  "what's the weather in Paris tomorrow",
  'open a pull request for my branch and ask Dana to review it',
  'how much is 250 euros in yen',
  'find a free slot with Priya next week and book a meeting',
  'show me the error logs for the checkout service',
  'translate my last note into Spanish',
];

/** Samples shown at most. */
const MAX_SAMPLES = 6;

/** A sample's length at most, in characters, before it is cut at a word. */
const MAX_LENGTH = 80;

/**
 * The sample prompts for a registry: the demo's for the demo registry; for a user's file, one
 * per tool for up to six tools spread over the list, each the first sentence of the tool's
 * description (or its name in words when it has none).
 *
 * @example
 * samplePrompts([{ name: 'send_invoice', description: 'Email an invoice to a customer.', parameters: {} }], 'file')
 * // ['email an invoice to a customer']
 */
export function samplePrompts(tools: readonly ToolSchema[], source: 'demo' | 'file'): readonly string[] {
  if (source === 'demo') return DEMO_SAMPLES;
  const count = Math.min(MAX_SAMPLES, tools.length);
  const samples: string[] = [];
  for (let i = 0; i < count; i++) {
    const tool = tools[Math.floor((i * tools.length) / count)];
    const sample = tool ? promptFor(tool) : '';
    if (sample && !samples.includes(sample)) samples.push(sample);
  }
  return samples;
}

/** A tool's description's first sentence as a prompt; its name in words when that is empty. */
function promptFor(tool: ToolSchema): string {
  const sentence = (tool.description ?? '').trim().split(/(?<=[.!?])\s/)[0] ?? '';
  const text = sentence.replace(/[.!?:;,\s]+$/, '') || nameInWords(tool.name);
  // "Email an invoice" reads as a request once lowercased; "URL of …" keeps its acronym.
  const start = /^[A-Z][a-z]/.test(text) ? `${(text[0] as string).toLowerCase()}${text.slice(1)}` : text;
  return start.length <= MAX_LENGTH ? start : `${start.slice(0, start.lastIndexOf(' ', MAX_LENGTH))}…`;
}

/** `get_weather` and `listOpenPullRequests` as words: "get weather", "list open pull requests". */
function nameInWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim()
    .toLowerCase();
}
