/**
 * The rewrite call's prompt: tool names with one-line summaries (never the schemas), the run
 * prompt, and bounded excerpts of the recent conversation.
 */
import type { Message } from '../message.js';
import { messageText } from '../message.js';
import type { ToolSchema } from '../registry/schema.js';
import { truncateUtf8 } from '../text/truncate-utf8.js';
import type { SelectionContext } from './selector.js';

/** Each conversation excerpt in the rewrite prompt is capped at this many UTF-8 bytes. */
export const REWRITE_EXCERPT_BYTES = 400;

/**
 * The run prompt is the query itself, so it gets more room than an excerpt, but still a cap:
 * a pasted file must not turn a small selection call into a large one.
 */
const PROMPT_BYTES = 2_000;
/** A tool's one-line summary: its first sentence, capped. */
const SUMMARY_BYTES = 160;
export const DEFAULT_RECENT_MESSAGES = 4;

// Fixed text, independent of the options, so a provider's prompt cache can reuse it.
export const REWRITE_INSTRUCTIONS = [
  'You choose which tools an assistant should be offered for its next step.',
  'Reply with only a JSON array of tool names copied exactly from the list, for example ["first_tool", "second_tool"].',
  'Include every tool the next step might need; when unsure, include it.',
  'Reply [] only if the next step needs no tool at all.',
].join(' ');

/**
 * The user message of the rewrite call: the tool list (names and one-line summaries), the
 * run prompt, and excerpts of the recent conversation. Undefined when there is nothing to
 * select for (no prompt and no conversation).
 *
 * @example
 * buildRewritePrompt({ turn: 1, latestUserMessage: 'Weather in Oslo?', conversation: [] }, tools, 4)
 * // 'Tools:\n- get_weather: Current weather for a city.\n\nTask:\nWeather in Oslo?\n\n…'
 */
export function buildRewritePrompt(
  ctx: SelectionContext,
  all: readonly ToolSchema[],
  recentMessages: number = DEFAULT_RECENT_MESSAGES,
): string | undefined {
  const task = oneLine(ctx.latestUserMessage ?? '');
  const recent = recentExcerpts(ctx.conversation, ctx.latestUserMessage, recentMessages);
  if (task === '' && recent.length === 0) return undefined;

  const lines = ['Tools:'];
  for (const tool of all) {
    const summary = toolSummary(tool.description);
    lines.push(summary ? `- ${tool.name}: ${summary}` : `- ${tool.name}`);
  }
  if (task !== '') lines.push('', 'Task:', excerpt(task, PROMPT_BYTES));
  if (recent.length > 0) lines.push('', 'Recent conversation (oldest first):', ...recent);
  lines.push('', 'Which tools does the next step need? Reply with a JSON array of names from the list.');
  return lines.join('\n');
}

/**
 * A tool's one-line summary: the first sentence of its description, whitespace collapsed,
 * capped at 160 bytes.
 *
 * @example
 * toolSummary('Current weather for a city. Uses the met.no API.') // 'Current weather for a city.'
 */
export function toolSummary(description: string | undefined): string {
  const text = oneLine(description ?? '');
  const end = /[.!?](?=\s|$)/.exec(text);
  return excerpt(end ? text.slice(0, end.index + 1) : text, SUMMARY_BYTES);
}

/** The last `count` messages (system messages and the run prompt itself left out), one line each, capped. */
function recentExcerpts(conversation: readonly Message[], prompt: string | undefined, count: number): string[] {
  if (count === 0) return [];
  const promptLine = oneLine(prompt ?? '');
  const picked: Message[] = [];
  for (let i = conversation.length - 1; i >= 0 && picked.length < count; i--) {
    const message = conversation[i] as Message;
    if (message.role === 'system') continue;
    // The prompt already has its own section; repeating it would only spend tokens.
    if (message.role === 'user' && oneLine(messageText(message)) === promptLine) continue;
    picked.push(message);
  }
  return picked.reverse().map((message) => excerpt(renderMessage(message), REWRITE_EXCERPT_BYTES));
}

function renderMessage(message: Message): string {
  const text = oneLine(messageText(message));
  switch (message.role) {
    case 'assistant': {
      const calls = message.toolCalls?.map((call) => call.name) ?? [];
      const called = calls.length > 0 ? `[called ${calls.join(', ')}]` : '';
      return `assistant: ${[called, text].filter(Boolean).join(' ')}`;
    }
    case 'tool':
      return `tool ${message.name}${message.isError ? ' (error)' : ''}: ${text}`;
    default:
      return `${message.role}: ${text}`;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `text` within `maxBytes` of UTF-8, marked with an ellipsis (inside the cap) when cut. */
function excerpt(text: string, maxBytes: number): string {
  if (truncateUtf8(text, maxBytes).length === text.length) return text;
  return `${truncateUtf8(text, maxBytes - 3)}…`;
}
