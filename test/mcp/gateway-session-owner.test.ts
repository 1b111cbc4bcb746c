/**
 * A gateway session answers only the caller that opened it (`gatewayStateless`'s `owner`): an
 * id seen by someone else reads none of its found tools and cannot end it. Through the real
 * MCP SDK client and a real upstream over stdio.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpGateway } from '../../src/adapters/mcp/gateway.js';
import { memoryGatewaySessions } from '../../src/adapters/mcp/gateway-sessions.js';
import { type GatewayFetch, gatewayStateless } from '../../src/adapters/mcp/gateway-stateless.js';
import { ToolRegistry } from '../../src/registry/registry.js';

const ODD = fileURLToPath(new URL('./fixtures/odd-names-server.mjs', import.meta.url));
const URL_ = new URL('http://gateway.test/mcp');

let gateway: McpGateway;
let handle: GatewayFetch;
const clients: Client[] = [];

beforeAll(async () => {
  gateway = new McpGateway({
    registry: new ToolRegistry(),
    servers: [{ name: 'odd.tools', config: { command: process.execPath, args: [ODD], prefix: 'odd_tools' } }],
  });
  await gateway.start();
  handle = await gatewayStateless(gateway, {
    exposeFound: true,
    sessions: memoryGatewaySessions(),
    owner: (request) => request.headers.get('authorization') ?? '',
  });
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await gateway.close();
});

const fetcher = (input: string | URL | Request, init?: RequestInit) => handle(new Request(input, init));

/** A raw `tools/list` in `session`, sent with `credential`: the names listed. */
async function listAs(credential: string, session: string): Promise<string[]> {
  const response = await handle(
    new Request(URL_, {
      method: 'POST',
      headers: {
        authorization: credential,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    }),
  );
  expect(response.status).toBe(200);
  const event = /data: (.*)/.exec(await response.text())?.[1] ?? '{}';
  const tools = (JSON.parse(event) as { result?: { tools?: { name: string }[] } }).result?.tools ?? [];
  return tools.map((tool) => tool.name);
}

describe('gatewayStateless: a session is bound to its owner', () => {
  it('another caller holding the session id sees none of its found tools and cannot end it', async () => {
    const client = new Client({ name: 'owner-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(URL_, {
      fetch: fetcher,
      requestInit: { headers: { Authorization: 'Bearer alice' } },
    });
    await client.connect(transport);
    clients.push(client);
    const changed = new Promise<void>((done) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => done()),
    );
    const result = (await client.callTool({
      name: 'search_tools',
      arguments: { query: 'draw a tiny picture', limit: 1 },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    await changed;
    const session = transport.sessionId as string;
    const own = await listAs('Bearer alice', session);
    expect(own.length).toBe(3);
    // Mallory has the id but not the credential: the fixed list, nothing of Alice's.
    expect(await listAs('Bearer mallory', session)).toEqual(['search_tools', 'call_tool']);
    // Her DELETE of the id ends nothing of Alice's.
    const ended = await handle(
      new Request(URL_, { method: 'DELETE', headers: { authorization: 'Bearer mallory', 'mcp-session-id': session } }),
    );
    expect(ended.status).toBe(200);
    expect(await listAs('Bearer alice', session)).toEqual(own);
    // Alice's own DELETE does.
    await transport.terminateSession();
    expect(await listAs('Bearer alice', session)).toEqual(['search_tools', 'call_tool']);
  });
});
