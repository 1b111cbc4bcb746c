/**
 * `loopctl/mcp` inside workerd: the module imports (no `node:child_process` is pulled in),
 * and a stdio mount is refused with an error that says what to do, before anything starts.
 */
import { expect, it } from 'vitest';
import { mountMcp } from '../../src/adapters/mcp/index.js';
import { ToolRegistry } from '../../src/registry/registry.js';

it('a stdio mount in a Worker rejects with "stdio needs Node or Deno", leaving the registry alone', async () => {
  const registry = new ToolRegistry();
  await expect(
    mountMcp(registry, { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], prefix: 'memory' }),
  ).rejects.toThrow(
    'mountMcp: stdio MCP servers need Node or Deno (Cloudflare Workers cannot start processes); mount this server over Streamable HTTP (url) instead',
  );
  expect(registry.size).toBe(0);
});
