/**
 * `loopctl mcp` over stdio, as IDE agents spawn it: both MCP eras on the one connection. With
 * SDK v2 (`@modelcontextprotocol/server`) installed, its `serveStdio` picks the era from the
 * client's opening message (`server/discover`: 2026-07-28; `initialize`: the 2025 era) and
 * serves one instance of the gateway's surface for the connection's life. Without it, the 1.x
 * SDK serves the 2025 era, as before, and the log says what to install.
 */
import type { McpGateway } from '../adapters/mcp/gateway.js';
import {
  claimsModern,
  importModernSdk,
  modernGatewayServer,
  modernMissingError,
} from '../adapters/mcp/gateway-server-modern.js';
import { untilStopped } from './until-stopped.js';

/**
 * Serve `gateway` on this process's stdin and stdout until the client closes stdin (or
 * SIGINT/SIGTERM); the gateway itself stays open (close it after). `exposeFound` applies to a
 * 2025-era connection only: a 2026-07-28 list does not vary per connection.
 *
 * @example
 * await serveGatewayStdio(gateway, { exposeFound: false, log: console.error })
 */
export async function serveGatewayStdio(
  gateway: McpGateway,
  options: { readonly exposeFound: boolean; readonly log: (line: string) => void },
): Promise<void> {
  const { exposeFound, log } = options;
  const sdk = await importModernSdk();
  const closed = new Promise<void>((done) => {
    process.stdin.once('end', () => done());
    void untilStopped().then(done);
  });
  if (sdk instanceof Error) {
    log(sdk.message);
    const [{ gatewayServer }, { StdioServerTransport }] = await Promise.all([
      import('../adapters/mcp/gateway-server.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
    ]);
    const server = await gatewayServer(gateway, { exposeFound });
    const ended = new Promise<void>((done) => {
      server.onclose = () => done();
    });
    const transport = new StdioServerTransport();
    await server.connect(transport);
    // A 2026-07-28 request (the envelope in its _meta) is answered -32022 naming the package,
    // which also tells a negotiating client to fall back to initialize.
    const pass = transport.onmessage;
    transport.onmessage = (message) => {
      if ('method' in message && 'id' in message && claimsModern(message, new Headers()))
        void transport.send(modernMissingError(message, sdk.message) as never).catch(() => undefined);
      else pass?.(message);
    };
    await Promise.race([closed, ended]);
    await server.close().catch(() => undefined);
    return;
  }
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  const connection = serveStdio(
    ({ era }) => modernGatewayServer(sdk, gateway, { exposeFound: exposeFound && era === 'legacy' }),
    { onerror: (error) => log(error.message) },
  );
  await closed;
  await connection.close().catch(() => undefined);
}
