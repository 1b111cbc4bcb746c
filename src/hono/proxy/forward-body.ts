/**
 * The forwarded body: the client's text byte for byte, with only the `tools` array rewritten
 * to the kept entries (each entry's own text, verbatim) and, for Anthropic, a moved
 * `cache_control`. Unknown fields, key order, whitespace and number formatting survive.
 */
import { applyEdits, toolsEdit } from './body-edits.js';
import type { BreakpointMove } from './cache-breakpoint.js';
import type { ProxyRequest } from './proxy-protocol.js';

/**
 * The body to send upstream for a keep set. Every tool kept and no move: the original text.
 *
 * @example
 * forwardBody(request, [2, 7]) // '{"model":"m","tools":[<tools[2]>,<tools[7]>],"messages":[…]}'
 */
export function forwardBody(request: ProxyRequest, kept: readonly number[], move?: BreakpointMove): string {
  const edit = toolsEdit(request, kept, move);
  return edit ? applyEdits(request.text, [edit]) : request.text;
}
