// Your own tools behind the loopctl API: schemas in tools.json, handlers here.
import { type ToolDefinition, ToolRegistry } from 'loopctl';
import { createWorker } from 'loopctl/hono';
import tools from '../tools.json';

// tools.json may hold loopctl's, OpenAI's ({ type: 'function', function }) or Anthropic/MCP
// (input_schema / inputSchema) definitions; register() reads each and refuses a bad one by name.
const registry = new ToolRegistry();
for (const tool of tools as ToolDefinition[]) {
  // Replace with real work (a fetch to your backend…); this one echoes the call.
  registry.register(tool, (args, { call }) => ({ tool: call.name, received: args }));
}

// Token, model and CORS come from wrangler.toml [vars] and secrets; KV `VECTORS` keeps corpus vectors.
export default createWorker({ registry });
