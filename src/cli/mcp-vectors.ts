/**
 * `loopctl mcp --build-vectors FILE`: the gateway's servers started, every tool they list
 * embedded under the name the gateway gives it, and the vectors file written. A vectors file is
 * keyed by tool text (the split name and the description), so one built from the servers' own
 * names (`math.factorial`) would miss the gateway's (`bfcl__math_factorial`): this builds it
 * from the names the gateway will rank.
 */
import { renameSync, writeFileSync } from 'node:fs';
import type { McpGateway } from '../adapters/mcp/gateway.js';
import type { Embedder } from '../embed/embedder.js';
import { buildHybridVectorsFile } from './hybrid-vectors.js';

/**
 * Mount every configured server, embed their tools, write `path`, close them. Exit code 0, or 1
 * when a server could not be mounted (the file is written without its tools, and says so).
 *
 * @example
 * await buildGatewayVectors(gateway, () => defaultEmbedder(modelDir), 'gateway.lcv', console.log)
 */
export async function buildGatewayVectors(
  gateway: McpGateway,
  embedder: () => Promise<Embedder>,
  path: string,
  out: (line: string) => void,
): Promise<number> {
  try {
    const [model] = await Promise.all([embedder(), gateway.start()]);
    const tools = gateway.tools();
    const started = performance.now();
    const bytes = await buildHybridVectorsFile(model, tools, { precision: 'f16' });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
    const down = gateway.status().filter((server) => server.tools === undefined);
    out(
      `wrote ${path}: ${tools.length} tools from ${gateway.status().length - down.length} servers, ` +
        `${(bytes.byteLength / 1024).toFixed(1)} KB (f16, ${model.id}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    for (const server of down)
      out(`not in the file: ${server.server} (down: ${server.error}); the gateway embeds its tools when it is up`);
    return down.length > 0 ? 1 : 0;
  } finally {
    await gateway.close();
  }
}
