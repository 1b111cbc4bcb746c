#!/usr/bin/env node
// A generated stdio MCP server exposing a public set's tools (tools.json: [{name, description,
// parameters}]) with their names as the set spells them (`math.factorial`), for
// scripts/bench-gateway.mjs. A call answers with the name it was called by.
//
//   node scripts/bench-gateway-server.mjs ../shared/eval/bfcl/tools.json
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node scripts/bench-gateway-server.mjs TOOLS_JSON\n');
  process.exit(2);
}
const source = JSON.parse(readFileSync(file, 'utf8'));
/**
 * MCP wants an object schema: a set's `{}` (no parameters) or another shape becomes one.
 *
 * @example
 * inputSchema({}) // { type: 'object', properties: {} }
 */
function inputSchema(parameters) {
  if (parameters && typeof parameters === 'object' && parameters.type === 'object') return parameters;
  return { type: 'object', properties: {} };
}
const tools = (Array.isArray(source) ? source : source.tools).map((tool) => ({
  name: tool.name,
  description: tool.description ?? '',
  inputSchema: inputSchema(tool.parameters),
}));
const server = new Server({ name: 'generated', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: 'text', text: `called ${request.params.name}` }],
}));
await server.connect(new StdioServerTransport());
