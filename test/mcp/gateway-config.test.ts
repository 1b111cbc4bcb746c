/** The gateway's configuration reader and its result bound, without starting anything. */
import { describe, expect, it } from 'vitest';
import { parseGatewayConfig, stripJsonComments } from '../../src/adapters/mcp/gateway-config.js';
import { boundResult } from '../../src/adapters/mcp/gateway-result.js';

describe('parseGatewayConfig', () => {
  it("reads Claude Desktop / Cursor's mcpServers: stdio and remote entries, named and prefixed by their keys", () => {
    const config = parseGatewayConfig(
      JSON.stringify({
        mcpServers: {
          filesystem: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
            env: { A: '1' },
          },
          'github.com/api': { url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer t' } },
        },
        globalShortcut: 'Ctrl+Space',
      }),
      'claude_desktop_config.json',
    );
    expect(config.servers).toEqual([
      {
        name: 'filesystem',
        config: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
          env: { A: '1' },
          prefix: 'filesystem',
          name: 'filesystem',
        },
      },
      {
        name: 'github.com/api',
        config: {
          url: 'https://api.example.com/mcp',
          headers: { Authorization: 'Bearer t' },
          prefix: 'github_com_api',
          name: 'github.com/api',
        },
      },
    ]);
    expect(config.core).toEqual([]);
  });

  it("reads VS Code's servers with type, comments and trailing commas, and leaves disabled ones out", () => {
    const config = parseGatewayConfig(
      `{
        // .vscode/mcp.json
        "inputs": [],
        "servers": {
          "memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], },
          "remote": { "type": "http", "url": "https://mcp.example.com/mcp" /* Streamable HTTP */ },
          "old": { "type": "sse", "url": "https://mcp.example.com/sse" },
          "off": { "command": "npx", "disabled": true },
        },
      }`,
      '.vscode/mcp.json',
    );
    expect(config.servers.map((s) => s.name)).toEqual(['memory', 'remote', 'old']);
    expect(config.servers[0]?.config).toMatchObject({ command: 'npx', prefix: 'memory' });
    expect(config.servers[1]?.config).toMatchObject({ url: 'https://mcp.example.com/mcp' });
    expect(config.servers[2]?.error).toContain('legacy SSE transport');
  });

  it("keeps a bad entry as that server's error and the others usable; a file that is no server list throws", () => {
    const config = parseGatewayConfig(
      JSON.stringify({ mcpServers: { good: { command: 'node' }, bad: { url: 'ftp://x' }, worse: 'npx' } }),
      'mcp.json',
    );
    expect(config.servers.map((s) => [s.name, s.config ? 'ok' : s.error])).toEqual([
      ['good', 'ok'],
      ['bad', 'mcp.json: server "bad".url must be http or https, got ftp:'],
      ['worse', 'mcp.json: server "worse" must be an object with a "command" or a "url"'],
    ]);
    expect(() => parseGatewayConfig('{"mcpServers": ', 'mcp.json')).toThrow('mcp.json is not valid JSON');
    expect(() => parseGatewayConfig('{"servrs": {}}', 'mcp.json')).toThrow('has no "mcpServers"');
    expect(() => parseGatewayConfig('{"mcpServers": {}, "loopctl": {"cores": []}}', 'mcp.json')).toThrow(
      'unknown keys cores',
    );
  });

  // The config's own syntax is written %{…} here and turned into ${…}, so it does not read as a template.
  const vars = (text: string): string => text.replaceAll('%{', '$' + '{');

  it('expands VAR, VAR:-default and env:VAR references, and names a variable that is not set', () => {
    const config = parseGatewayConfig(
      vars(
        JSON.stringify({
          mcpServers: {
            api: { url: '%{BASE:-https://mcp.example.com}/mcp', headers: { Authorization: 'Bearer %{env:TOKEN}' } },
            unset: { command: 'node', env: { KEY: '%{MISSING_KEY}' } },
          },
        }),
      ),
      'mcp.json',
      { TOKEN: 'secret' },
    );
    expect(config.servers[0]?.config).toMatchObject({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer secret' },
    });
    expect(config.servers[1]?.error).toContain(vars('%{MISSING_KEY} names the variable MISSING_KEY, which is not set'));
  });

  it('takes the LOOPCTL_MCP_SERVERS array and the loopctl block', () => {
    const list = parseGatewayConfig('[{"command": "node", "prefix": "mem"}]', 'LOOPCTL_MCP_SERVERS');
    expect(list.servers).toEqual([{ name: 'mem', config: { command: 'node', prefix: 'mem' } }]);
    const options = parseGatewayConfig(
      '{"mcpServers": {}, "loopctl": {"core": ["fs__read_text_file"], "exposeFound": true, "maxResultChars": 2000}}',
      'mcp.json',
    );
    expect(options).toEqual({ servers: [], core: ['fs__read_text_file'], exposeFound: true, maxResultChars: 2000 });
    const shipped = parseGatewayConfig('{"mcpServers": {}, "loopctl": {"vectors": "tools.lcv"}}', 'mcp.json');
    expect(shipped.vectors).toBe('tools.lcv');
    expect(() => parseGatewayConfig('{"mcpServers": {}, "loopctl": {"vectors": 1}}', 'mcp.json')).toThrow(
      '"loopctl.vectors" must be a file path',
    );
  });

  it('gives servers whose keys clash once made valid distinct prefixes', () => {
    const config = parseGatewayConfig('{"mcpServers": {"a.b": {"command": "x"}, "a/b": {"command": "y"}}}', 'f');
    expect(config.servers.map((s) => s.config?.prefix)).toEqual(['a_b', 'a_b_2']);
  });
});

describe('stripJsonComments', () => {
  it('leaves strings alone, URLs with // included', () => {
    const text = '{"url": "https://x/y//z", /* c */ "a": "// not a comment", "b": [1, 2,],}';
    expect(JSON.parse(stripJsonComments(text))).toEqual({ url: 'https://x/y//z', a: '// not a comment', b: [1, 2] });
  });
});

describe('boundResult', () => {
  it('passes a result within the bound through as it is', () => {
    const result = { content: [{ type: 'text', text: 'ok' }], structuredContent: { ok: true } };
    expect(boundResult(result, 100)).toBe(result);
  });

  it('cuts text at the bound, leaves out binary that does not fit, and says so', () => {
    const result = boundResult(
      {
        content: [
          { type: 'text', text: 'a'.repeat(60) },
          { type: 'text', text: 'b'.repeat(60) },
          { type: 'image', data: 'x'.repeat(80), mimeType: 'image/png' },
        ],
        structuredContent: { big: true },
      },
      100,
    );
    expect(result.content).toEqual([
      { type: 'text', text: 'a'.repeat(60) },
      { type: 'text', text: 'b'.repeat(40) },
      { type: 'text', text: '[image image/png, 80 characters left out: over the result bound]' },
      {
        type: 'text',
        text: '[result cut by the loopctl gateway: 100 of 212 characters passed on (bound 100); ask for less, e.g. a narrower range or fewer rows]',
      },
    ]);
    expect(result.structuredContent).toBeUndefined();
  });
});
