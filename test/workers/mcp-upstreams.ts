/**
 * The gateway's upstreams for the workerd suite, started in Node by global setup on loopback:
 * the notes server (the real MCP SDK's `McpServer` over Streamable HTTP, stateful, behind a
 * bearer token), and a server that answers `initialize` but lists garbage for `tools/list`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startNotesServer } from '../mcp/servers.js';
import { NOTES_TOKEN } from './constants.js';

/** Both upstreams' URLs, and how to stop them. */
export interface McpUpstreams {
  readonly notesURL: string;
  readonly garbageURL: string;
  close(): Promise<void>;
}

/**
 * Start both upstreams on 127.0.0.1 (port 0).
 *
 * @example
 * const upstreams = await startMcpUpstreams()
 * upstreams.notesURL // http://127.0.0.1:PORT/mcp
 */
export async function startMcpUpstreams(): Promise<McpUpstreams> {
  const notes = await startNotesServer({ token: NOTES_TOKEN });
  const garbage = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(text) as { id?: number; method?: string; params?: { protocolVersion?: string } };
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result =
        message.method === 'initialize'
          ? {
              protocolVersion: message.params?.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'garbage', version: '0' },
            }
          : { tools: [{ name: 42 }, 'not a tool', { description: 'no name' }], nextCursor: { bad: true } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((done) => garbage.listen(0, '127.0.0.1', done));
  const { port } = garbage.address() as AddressInfo;
  return {
    notesURL: notes.url,
    garbageURL: `http://127.0.0.1:${port}/mcp`,
    async close() {
      garbage.closeAllConnections();
      await new Promise<void>((done) => garbage.close(() => done()));
      await notes.close();
    },
  };
}
