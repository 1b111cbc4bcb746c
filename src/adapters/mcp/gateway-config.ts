/**
 * The gateway's configuration: the `mcpServers` JSON that Claude Desktop, Claude Code
 * (`.mcp.json`) and Cursor use, VS Code's `servers` (with `type`), and the array
 * `LOOPCTL_MCP_SERVERS` takes. One bad server entry is kept as that server's error, so the
 * gateway still serves the others and reports it; a file that is not a server list at all throws.
 */
import { errorMessage } from '../../describe-error.js';
import { type McpServerConfig, parseMcpServer, parseMcpServers } from './config.js';

/** One configured server: usable (`config`) or not, and why (`error`). */
export interface GatewayServer {
  /** The key it was given in the file (its label and, made valid, its tool-name prefix). */
  readonly name: string;
  readonly config?: McpServerConfig;
  readonly error?: string;
}

/** What the gateway serves, read from one source. */
export interface GatewayConfig {
  readonly servers: readonly GatewayServer[];
  /** Tools listed as themselves beside the search and call tools (`"loopctl": { "core": […] }`). */
  readonly core: readonly string[];
  /** Add the tools a search finds to `tools/list` for the session (`"loopctl": { "exposeFound": true }`). */
  readonly exposeFound?: boolean;
  /** Longest call result passed on, in characters (`"loopctl": { "maxResultChars": N }`). */
  readonly maxResultChars?: number;
  /**
   * A vectors file for the servers' tools, as written (`"loopctl": { "vectors": "FILE" }`); the
   * CLI reads it relative to the config file's folder.
   */
  readonly vectors?: string;
}

/** Keys editors and agents put in a server entry that say nothing about reaching it. */
const IGNORED_KEYS = new Set([
  'type',
  'disabled',
  'description',
  'timeout',
  'alwaysAllow',
  'autoApprove',
  'disabledTools',
  'trust',
  'includeTools',
  'excludeTools',
  'gallery',
  'version',
]);
const LOOPCTL_KEYS = new Set(['core', 'exposeFound', 'maxResultChars', 'vectors']);
const HTTP_TYPES = new Set(['http', 'streamable-http', 'streamableHttp', 'streamable_http']);

/**
 * Read a gateway configuration: `{ "mcpServers": { NAME: { command, args, env } | { url,
 * headers } } }` (Claude Desktop, Claude Code, Cursor), `{ "servers": { NAME: { type, … } } }`
 * (VS Code), or a JSON array of `LOOPCTL_MCP_SERVERS` entries. Comments and trailing commas
 * (VS Code's JSONC) are allowed; `${VAR}`, `${VAR:-default}` and `${env:VAR}` in commands,
 * arguments, variables, URLs and headers are read from `vars`. A disabled entry is left out.
 *
 * @example
 * const config = parseGatewayConfig(readFileSync('.mcp.json', 'utf8'), '.mcp.json', process.env)
 * config.servers // [{ name: 'filesystem', config: { command: 'npx', args: [...], prefix: 'filesystem', name: 'filesystem' } }]
 */
export function parseGatewayConfig(
  text: string,
  source: string,
  vars: Readonly<Record<string, string | undefined>> = {},
): GatewayConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripJsonComments(text));
  } catch (error) {
    throw new Error(`${source} is not valid JSON (${errorMessage(error)})`);
  }
  if (Array.isArray(parsed)) {
    const servers = parseMcpServers(JSON.stringify(parsed), source);
    return {
      servers: servers.map((config, i) => ({ name: config.name ?? config.prefix ?? `server${i + 1}`, config })),
      core: [],
    };
  }
  if (!isRecord(parsed)) throw new Error(`${source} must be a JSON object with "mcpServers" (or VS Code's "servers")`);
  const list = parsed.mcpServers ?? parsed.servers;
  if (list !== undefined && !isRecord(list))
    throw new Error(
      `${source}: "${'mcpServers' in parsed ? 'mcpServers' : 'servers'}" must be an object of server names to servers`,
    );
  if (list === undefined && parsed.loopctl === undefined)
    throw new Error(`${source} has no "mcpServers" (or VS Code's "servers") object`);
  const prefixes = new Set<string>();
  const servers: GatewayServer[] = [];
  for (const [name, entry] of Object.entries(list ?? {})) {
    if (isRecord(entry) && entry.disabled === true) continue;
    const prefix = uniquePrefix(name, prefixes);
    try {
      servers.push({ name, config: serverEntry(entry, name, prefix, `${source}: server "${name}"`, vars) });
    } catch (error) {
      servers.push({ name, error: errorMessage(error) });
    }
  }
  return { servers, ...loopctlOptions(parsed.loopctl, source) };
}

/** One editor-style entry as a mount configuration, named by its key. */
function serverEntry(
  entry: unknown,
  name: string,
  prefix: string,
  where: string,
  vars: Readonly<Record<string, string | undefined>>,
): McpServerConfig {
  if (!isRecord(entry)) throw new Error(`${where} must be an object with a "command" or a "url"`);
  const type = entry.type;
  if (type === 'sse')
    throw new Error(
      `${where} uses the legacy SSE transport, which the gateway does not mount; give its Streamable HTTP URL`,
    );
  if (type !== undefined && type !== 'stdio' && !(typeof type === 'string' && HTTP_TYPES.has(type)))
    throw new Error(`${where} has an unknown "type" ${JSON.stringify(type)} (stdio, http)`);
  if (type === 'stdio' && !('command' in entry)) throw new Error(`${where} has "type": "stdio" but no "command"`);
  if (type !== undefined && type !== 'stdio' && !('url' in entry))
    throw new Error(`${where} has "type": ${JSON.stringify(type)} but no "url"`);
  if ('envFile' in entry) throw new Error(`${where}: "envFile" is not read by the gateway; put the variables in "env"`);
  const kept: Record<string, unknown> = { prefix, name };
  for (const [key, value] of Object.entries(entry)) if (!IGNORED_KEYS.has(key)) kept[key] = expand(value, where, vars);
  return parseMcpServer(kept, where);
}

/** The `"loopctl"` block: gateway options, checked. */
function loopctlOptions(value: unknown, source: string): Omit<GatewayConfig, 'servers'> {
  if (value === undefined) return { core: [] };
  if (!isRecord(value)) throw new Error(`${source}: "loopctl" must be an object`);
  const unknown = Object.keys(value).filter((key) => !LOOPCTL_KEYS.has(key));
  if (unknown.length > 0)
    throw new Error(
      `${source}: "loopctl" has unknown keys ${unknown.join(', ')} (allowed: ${[...LOOPCTL_KEYS].join(', ')})`,
    );
  const { core = [], exposeFound, maxResultChars, vectors } = value;
  if (!Array.isArray(core) || !core.every((name) => typeof name === 'string'))
    throw new Error(`${source}: "loopctl.core" must be an array of tool names`);
  if (exposeFound !== undefined && typeof exposeFound !== 'boolean')
    throw new Error(`${source}: "loopctl.exposeFound" must be true or false`);
  if (maxResultChars !== undefined && !(Number.isInteger(maxResultChars) && (maxResultChars as number) > 0))
    throw new Error(`${source}: "loopctl.maxResultChars" must be a positive integer`);
  if (vectors !== undefined && !(typeof vectors === 'string' && vectors !== ''))
    throw new Error(`${source}: "loopctl.vectors" must be a file path (a vectors file for the servers' tools)`);
  return {
    core: core as string[],
    ...(exposeFound === undefined ? {} : { exposeFound }),
    ...(maxResultChars === undefined ? {} : { maxResultChars: maxResultChars as number }),
    ...(vectors === undefined ? {} : { vectors: vectors as string }),
  };
}

/** A valid tool-name prefix from a server's key, distinct from the ones already taken. */
function uniquePrefix(name: string, taken: Set<string>): string {
  const base = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 44) || 'server';
  let prefix = base;
  for (let n = 2; taken.has(prefix); n++) prefix = `${base}_${n}`;
  taken.add(prefix);
  return prefix;
}

/** `${VAR}`, `${VAR:-default}` and `${env:VAR}` replaced in every string of a value. */
function expand(value: unknown, where: string, vars: Readonly<Record<string, string | undefined>>): unknown {
  if (typeof value === 'string')
    return value.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
      if (inner.startsWith('input:'))
        throw new Error(
          `${where}: ${whole} is a VS Code input, which only VS Code can ask for; put the value or a \${VAR} there`,
        );
      const [, name = '', fallback] = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/.exec(inner) ?? [];
      if (name === '') return whole;
      const found = vars[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      throw new Error(`${where}: ${whole} names the variable ${name}, which is not set`);
    });
  if (Array.isArray(value)) return value.map((item) => expand(item, where, vars));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, where, vars)]));
  return value;
}

/**
 * JSONC as JSON: `//` and block comments and trailing commas removed, strings left alone.
 *
 * @example
 * JSON.parse(stripJsonComments('{ "a": 1, // one\n }')) // { a: 1 }
 */
export function stripJsonComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end - 1;
    } else if (char === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
      out += ' ';
    } else out += char;
  }
  // A second pass, so a comment between a trailing comma and its bracket is gone by then.
  return removeTrailingCommas(out);
}

function removeTrailingCommas(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end - 1;
      continue;
    }
    if (char === ',') {
      let next = i + 1;
      while (next < text.length && /\s/.test(text[next] as string)) next++;
      if (text[next] === '}' || text[next] === ']') continue;
    }
    out += char;
  }
  return out;
}

/** The index just past the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
