/**
 * Anthropic prompt caching across a narrowed `tools` array. A `cache_control` breakpoint
 * marks the end of a cached prefix; when it sat on a tool the proxy removed, it moves to the
 * last kept tool that is rendered (never onto a deferred one: a deferred tool is not part of the
 * cached prefix), so the client still gets a cached prefix ending at the tools. Breakpoints
 * on messages and system blocks are the client's and are never touched; the count of
 * breakpoints never grows (the provider allows four).
 */
import type { ClientTool } from './proxy-protocol.js';

/** Where a removed breakpoint goes. */
export interface BreakpointMove {
  /** Index (into the client's tools) of the kept tool that receives the breakpoint. */
  readonly to: number;
  /** The `cache_control` value, as the client wrote it on the removed tool. */
  readonly cacheControl: unknown;
}

/**
 * The breakpoint move for a keep set, or undefined when none is needed: no removed tool
 * carried one, the last kept rendered tool already has its own, or no kept tool is rendered.
 *
 * @example
 * breakpointMove(tools, [0, 4]) // { to: 4, cacheControl: { type: 'ephemeral' } } when tools[9] had it
 */
export function breakpointMove(tools: readonly ClientTool[], kept: readonly number[]): BreakpointMove | undefined {
  const last = kept.findLast((index) => !(tools[index] as ClientTool).deferred);
  if (last === undefined || (tools[last] as ClientTool).cacheControl !== undefined) return undefined;
  const keptSet = new Set(kept);
  let moved: unknown;
  // The latest removed breakpoint marks the longest prefix the client asked to cache.
  tools.forEach((tool, index) => {
    if (!keptSet.has(index) && tool.cacheControl !== undefined) moved = tool.cacheControl;
  });
  return moved === undefined ? undefined : { to: last, cacheControl: moved };
}

/**
 * One tool entry's text with a `cache_control` member appended before its closing brace:
 * everything the client wrote stays byte for byte.
 *
 * @example
 * withCacheControl('{"name":"a"}', { type: 'ephemeral' }) // '{"name":"a","cache_control":{"type":"ephemeral"}}'
 */
export function withCacheControl(entry: string, cacheControl: unknown): string {
  const close = entry.lastIndexOf('}');
  const head = entry.slice(0, close);
  const empty = /^\{\s*$/.test(head);
  return `${head}${empty ? '' : ','}"cache_control":${JSON.stringify(cacheControl)}${entry.slice(close)}`;
}
