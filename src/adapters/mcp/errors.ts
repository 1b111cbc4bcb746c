/** The adapter's error type and how errors become one readable line. */

/**
 * Thrown (and carried into tool error results) when a server cannot be reached or answer in
 * time, or the connection to it is lost.
 *
 * @example
 * await mount.refresh().catch((error) => {
 *   if (error instanceof McpUnreachableError) console.warn(error.message) // MCP server github unreachable: …
 * })
 */
export class McpUnreachableError extends Error {
  override readonly name = 'McpUnreachableError';
}

/**
 * Anything thrown, as an `Error`.
 *
 * @example
 * asError('boom').message // 'boom'
 */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
