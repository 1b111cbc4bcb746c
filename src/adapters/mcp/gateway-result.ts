/**
 * A call result's size, bounded: the gateway passes an upstream's content on as it came, up to
 * a bound, so one tool that dumps a database cannot fill the agent's context or its pipe.
 */
import type { McpToolResult } from './options.js';

/**
 * The default bound on what one call passes on, in characters (text, and base64 for binary
 * parts): about 25,000 tokens, the default ceiling Claude Code puts on an MCP tool's output.
 *
 * @example
 * boundResult(result, DEFAULT_MAX_RESULT_CHARS)
 */
export const DEFAULT_MAX_RESULT_CHARS = 100_000;

type Part = McpToolResult['content'][number];

/**
 * `result` with at most `maxChars` characters of content: parts kept in order while they fit,
 * the text part that crosses the bound cut there, binary parts that do not fit replaced by a
 * one-line note, and a closing note saying how much was left out. `structuredContent` is kept
 * only when everything fits (a cut copy would no longer match its schema). A result within the
 * bound is returned as it is.
 *
 * @example
 * boundResult({ content: [{ type: 'text', text: 'x'.repeat(200_000) }] }, 100_000).content[0].text.length // about 100,000
 */
export function boundResult(result: McpToolResult, maxChars: number = DEFAULT_MAX_RESULT_CHARS): McpToolResult {
  const content = Array.isArray(result.content) ? result.content : [];
  const structured = result.structuredContent === undefined ? 0 : JSON.stringify(result.structuredContent).length;
  const total = content.reduce((sum, part) => sum + partChars(part), 0);
  if (total + structured <= maxChars) return result;
  let left = maxChars;
  const kept: Part[] = [];
  for (const part of content) {
    const size = partChars(part);
    if (size <= left) {
      kept.push(part);
      left -= size;
    } else if (part.type === 'text' && typeof part.text === 'string' && left > 0) {
      kept.push({ ...part, text: part.text.slice(0, left) });
      left = 0;
    } else kept.push({ type: 'text', text: `[${describePart(part)} left out: over the result bound]` });
  }
  const shown = maxChars - left;
  kept.push({
    type: 'text',
    text: `[result cut by the loopctl gateway: ${shown.toLocaleString('en')} of ${(total + structured).toLocaleString('en')} characters passed on (bound ${maxChars.toLocaleString('en')}); ask for less, e.g. a narrower range or fewer rows]`,
  });
  const { structuredContent: _dropped, ...rest } = result;
  return { ...rest, content: kept };
}

/** Characters a part carries: its text, or its base64 data. */
function partChars(part: Part): number {
  if (part.type === 'text') return typeof part.text === 'string' ? part.text.length : 0;
  if (part.type === 'image' || part.type === 'audio') return typeof part.data === 'string' ? part.data.length : 0;
  if (part.type === 'resource') {
    const resource = (part.resource ?? {}) as { text?: unknown; blob?: unknown };
    return (
      (typeof resource.text === 'string' ? resource.text.length : 0) +
      (typeof resource.blob === 'string' ? resource.blob.length : 0)
    );
  }
  return JSON.stringify(part).length;
}

function describePart(part: Part): string {
  const mime = typeof part.mimeType === 'string' ? ` ${part.mimeType}` : '';
  if (part.type === 'resource') {
    const uri = (part.resource as { uri?: unknown } | undefined)?.uri;
    return `resource${typeof uri === 'string' ? ` ${uri}` : ''}`;
  }
  return `${part.type}${mime}, ${partChars(part).toLocaleString('en')} characters`;
}
