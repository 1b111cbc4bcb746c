/**
 * What both HTTP faces of the gateway (`gateway-http.ts`, sessions held in memory, and
 * `gateway-stateless.ts`, none held) answer with before the SDK sees a request, and the SDK's
 * web-standard server transport, loaded on first use.
 */
import { errorMessage } from '../../describe-error.js';

/**
 * A JSON-RPC error answer with no request id (the request was refused before it was read).
 *
 * @example
 * return rpcError(413, -32000, 'the request body is over 262144 bytes')
 */
export function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * The SDK's `WebStandardStreamableHTTPServerTransport` module, or an error naming the optional
 * peer dependency to install.
 *
 * @example
 * const { WebStandardStreamableHTTPServerTransport } = await importServerTransport()
 */
export async function importServerTransport() {
  try {
    return await import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js');
  } catch (error) {
    throw new Error(
      `the MCP gateway over HTTP needs the optional peer dependency @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk (${errorMessage(error)})`,
      { cause: error },
    );
  }
}
