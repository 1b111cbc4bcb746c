import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountAll, parseMcpServers } from '../../src/adapters/mcp/index.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { type GithubTestServer, type McpTestServer, startGithubServer, startNotesServer } from './servers.js';

describe('parseMcpServers', () => {
  it('reads nothing from an unset or blank value', () => {
    expect(parseMcpServers(undefined)).toEqual([]);
    expect(parseMcpServers('')).toEqual([]);
    expect(parseMcpServers('  \n')).toEqual([]);
    expect(parseMcpServers('[]')).toEqual([]);
  });

  it('reads a list of servers, keeping only the keys that were set', () => {
    const value = JSON.stringify([
      { url: 'https://mcp.example.com/github', prefix: 'github', headers: { Authorization: 'Bearer abc' } },
      { url: 'http://127.0.0.1:9000/mcp', name: 'local notes', timeoutMs: 5000 },
    ]);
    expect(parseMcpServers(value)).toEqual([
      { url: 'https://mcp.example.com/github', prefix: 'github', headers: { Authorization: 'Bearer abc' } },
      { url: 'http://127.0.0.1:9000/mcp', name: 'local notes', timeoutMs: 5000 },
    ]);
  });

  it.each([
    ['{not json', /^LOOPCTL_MCP_SERVERS is not valid JSON/],
    ['{"url":"https://a.example/mcp"}', /^LOOPCTL_MCP_SERVERS must be a JSON array/],
    ['["https://a.example/mcp"]', /^LOOPCTL_MCP_SERVERS\[0\] must be an object with a "url"/],
    ['[{}]', /^LOOPCTL_MCP_SERVERS\[0\]\.url must be a non-empty string/],
    ['[{"url":"/relative/mcp"}]', /^LOOPCTL_MCP_SERVERS\[0\]\.url is not an absolute URL/],
    ['[{"url":"ws://a.example/mcp"}]', /^LOOPCTL_MCP_SERVERS\[0\]\.url must be http or https, got ws:/],
    [
      '[{"url":"https://a.example/mcp","header":{}}]',
      /^LOOPCTL_MCP_SERVERS\[0\] has unknown key "header" \(allowed: url, prefix, headers, name, timeoutMs\)/,
    ],
    [
      '[{"url":"https://a.example/mcp","prefix":"git hub"}]',
      /^LOOPCTL_MCP_SERVERS\[0\]\.prefix must be 1–48 characters/,
    ],
    ['[{"url":"https://a.example/mcp","headers":[]}]', /^LOOPCTL_MCP_SERVERS\[0\]\.headers must be an object/],
    [
      '[{"url":"https://a.example/mcp","headers":{"X-N":1}}]',
      /^LOOPCTL_MCP_SERVERS\[0\]\.headers\["X-N"\] must be a string, got number/,
    ],
    [
      '[{"url":"https://a.example/mcp","headers":{"bad header":"x"}}]',
      /^LOOPCTL_MCP_SERVERS\[0\]\.headers\["bad header"\] is not a valid HTTP header/,
    ],
    [
      '[{"url":"https://a.example/mcp","timeoutMs":-1}]',
      /^LOOPCTL_MCP_SERVERS\[0\]\.timeoutMs must be a positive number/,
    ],
    ['[{"url":"https://a.example/mcp","name":""}]', /^LOOPCTL_MCP_SERVERS\[0\]\.name must be a non-empty string/],
    [
      '[{"url":"https://a.example/mcp","prefix":"gh"},{"url":"https://b.example/mcp","prefix":"gh"}]',
      /^LOOPCTL_MCP_SERVERS: prefix "gh" is used by two servers/,
    ],
    ['[{"command":""}]', /^LOOPCTL_MCP_SERVERS\[0\]\.command must be a non-empty string/],
    ['[{"command":"node","args":"server.js"}]', /^LOOPCTL_MCP_SERVERS\[0\]\.args must be an array of strings/],
    [
      '[{"command":"node","args":["server.js",1]}]',
      /^LOOPCTL_MCP_SERVERS\[0\]\.args\[1\] must be a string, got number/,
    ],
    [
      '[{"command":"node","env":{"TOKEN":1}}]',
      /^LOOPCTL_MCP_SERVERS\[0\]\.env\["TOKEN"\] must be a string, got number/,
    ],
    ['[{"command":"node","env":{"A=B":"x"}}]', /^LOOPCTL_MCP_SERVERS\[0\]\.env has an invalid variable name "A=B"/],
    ['[{"command":"node","cwd":""}]', /^LOOPCTL_MCP_SERVERS\[0\]\.cwd must be a non-empty string/],
    ['[{"command":"node","url":"https://a.example/mcp"}]', /^LOOPCTL_MCP_SERVERS\[0\] has both "url" and "command"/],
    [
      '[{"command":"node","headers":{}}]',
      /^LOOPCTL_MCP_SERVERS\[0\] has unknown key "headers" \(allowed: command, args, env, cwd, prefix, name, timeoutMs\)/,
    ],
  ])('rejects %s with a clear error', (value, message) => {
    expect(() => parseMcpServers(value)).toThrow(message);
  });

  it('reads stdio entries (a command) beside Streamable HTTP ones', () => {
    const value = JSON.stringify([
      {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-memory'],
        env: { MEMORY_FILE_PATH: '/data/memory.jsonl' },
        prefix: 'memory',
      },
      { command: '/usr/local/bin/files-mcp', cwd: '/srv/files', timeoutMs: 5000 },
      { url: 'https://mcp.example.com/github', prefix: 'github' },
    ]);
    expect(parseMcpServers(value)).toEqual([
      {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-memory'],
        env: { MEMORY_FILE_PATH: '/data/memory.jsonl' },
        prefix: 'memory',
      },
      { command: '/usr/local/bin/files-mcp', cwd: '/srv/files', timeoutMs: 5000 },
      { url: 'https://mcp.example.com/github', prefix: 'github' },
    ]);
  });

  it('names the source it was given', () => {
    expect(() => parseMcpServers('{', 'MY_SERVERS')).toThrow(/^MY_SERVERS is not valid JSON/);
  });
});

describe('mountAll', () => {
  let github: GithubTestServer;
  let notes: McpTestServer;
  beforeAll(async () => {
    [github, notes] = await Promise.all([startGithubServer(), startNotesServer({ token: 't0ken' })]);
  });
  afterAll(async () => {
    await Promise.all([github.close(), notes.close()]);
  });

  it('mounts every configured server, in configuration order', async () => {
    const registry = new ToolRegistry();
    const servers = parseMcpServers(
      JSON.stringify([
        { url: github.url, prefix: 'github' },
        { url: notes.url, prefix: 'notes', headers: { Authorization: 'Bearer t0ken' } },
      ]),
    );
    const mounts = await mountAll(registry, servers);
    try {
      expect(mounts.map((mount) => mount.name)).toEqual(['github', 'notes']);
      expect(registry.size).toBe(51);
      expect((await registry.dispatch({ id: '1', name: 'notes__list_notes', arguments: '{}' })).content).toBe(
        'n1: Standup',
      );
    } finally {
      await Promise.all(mounts.map((mount) => mount.unmount()));
    }
    expect(registry.size).toBe(0);
  });

  it('without onMountError, one failure unmounts the others and rejects naming the server', async () => {
    const registry = new ToolRegistry();
    const servers = [
      { url: github.url, prefix: 'github' },
      { url: notes.url, prefix: 'notes' }, // no token: 401
    ];
    await expect(mountAll(registry, servers)).rejects.toThrow(
      /^mounting MCP servers failed: MCP server notes unreachable: HTTP 401/,
    );
    expect(registry.size).toBe(0);
  });

  it('with onMountError, failures are reported and the rest are mounted', async () => {
    const registry = new ToolRegistry();
    const failed: string[] = [];
    const mounts = await mountAll(
      registry,
      [
        { url: github.url, prefix: 'github' },
        { url: notes.url, prefix: 'notes' },
      ],
      {
        onMountError: (error, server) => failed.push(`${server.prefix}: ${error.message}`),
      },
    );
    try {
      expect(mounts.map((mount) => mount.name)).toEqual(['github']);
      expect(failed).toEqual([expect.stringMatching(/^notes: MCP server notes unreachable: HTTP 401/)]);
      expect(registry.size).toBe(31);
    } finally {
      await Promise.all(mounts.map((mount) => mount.unmount()));
    }
  });
});
