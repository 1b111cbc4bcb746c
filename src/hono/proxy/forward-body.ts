/**
 * The forwarded body: the client's text byte for byte, with only the `tools` array rewritten
 * to the kept entries (each entry's own text, verbatim) and, for Anthropic, a moved
 * `cache_control`. Unknown fields, key order, whitespace and number formatting survive.
 */
import type { BreakpointMove } from './cache-breakpoint.js';
import { withCacheControl } from './cache-breakpoint.js';
import type { ProxyRequest } from './proxy-request.js';

/**
 * The body to send upstream for a keep set. Every tool kept and no move: the original text.
 *
 * @example
 * forwardBody(request, [2, 7]) // '{"model":"m","tools":[<tools[2]>,<tools[7]>],"messages":[…]}'
 */
export function forwardBody(request: ProxyRequest, kept: readonly number[], move?: BreakpointMove): string {
  const { text, toolsSpan, tools } = request;
  if (!toolsSpan || (kept.length === tools.length && !move)) return text;
  const entries = kept.map((index) => {
    const span = tools[index]?.span ?? { start: 0, end: 0 };
    const entry = text.slice(span.start, span.end);
    return move && move.to === index ? withCacheControl(entry, move.cacheControl) : entry;
  });
  return `${text.slice(0, toolsSpan.start)}[${entries.join(',')}]${text.slice(toolsSpan.end)}`;
}
