// Your own tools behind the loopctl API: schemas in tools.json, handlers here.
import { ToolRegistry, type ToolSchema } from 'loopctl';
import { createWorker } from 'loopctl/hono';
import tools from '../tools.json';

const registry = new ToolRegistry();
for (const tool of tools as ToolSchema[]) {
  // Replace with real work (a fetch to your backend…); this one echoes the call.
  registry.register(tool, (args) => ({ tool: tool.name, received: args }));
}

// Token, model and CORS come from wrangler.toml [vars] and secrets; KV `VECTORS` keeps corpus vectors.
export default createWorker({ registry });
