/**
 * The page script for test/e2e/mcp-stdio.test.ts: `loopctl/mcp` bundled for the browser,
 * asked to mount a stdio server; reports the error message through `window.__mcpStdio`.
 */
import { mountMcp } from '../../src/adapters/mcp/index.js';
import { ToolRegistry } from '../../src/registry/registry.js';

(window as unknown as { __mcpStdio: () => Promise<{ message: string; registered: number }> }).__mcpStdio = async () => {
  const registry = new ToolRegistry();
  try {
    await mountMcp(registry, { command: 'mcp-server-memory', prefix: 'memory' });
    return { message: 'mounted', registered: registry.size };
  } catch (error) {
    return { message: error instanceof Error ? error.message : String(error), registered: registry.size };
  }
};
