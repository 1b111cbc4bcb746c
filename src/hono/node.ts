/**
 * The Node helper (`loopctl/hono/node`): {@link createApp} on `@hono/node-server` (an optional
 * peer dependency, imported when a server starts), and USE-lite from a model folder on disk.
 */

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { errorMessage } from '../describe-error.js';
import type { VectorsSource } from '../embed/vectors-source.js';
import { mergeOptions } from '../options.js';
import type { EmbedderSource } from '../select/named-selectors.js';
import { isLoopbackAddress, LOOPBACK_HOSTS } from './allowed-hosts.js';
import { EmbedderUnavailableError } from './api-selectors.js';
import type { AppOptions } from './app.js';
import { createApp } from './app.js';
import { varText } from './config-vars.js';
import { optionsFromVars } from './env-options.js';
import { fileTrafficStore } from './proxy/learn/file-traffic-store.js';
import type { ProxySettings } from './proxy/proxy-settings.js';
import { learnBounds } from './proxy/proxy-settings.js';
import { ENTRY_SETTINGS, PROXY_SETTINGS } from './settings.js';

/** Options for {@link startNodeServer}: the app's, plus where to listen and which variables to read. */
export interface NodeServerOptions extends AppOptions {
  /** Default: the `PORT` variable, else its default (`ENTRY_SETTINGS`); 0 picks a free port. */
  port?: number;
  /**
   * Default: the `HOST` variable, else its default, loopback only: the app then answers only
   * loopback `Host` names unless `allowedHosts` (or `ALLOWED_HOSTS`) is set.
   */
  hostname?: string;
  /**
   * The configuration variables (`LoopctlVars`: `LOOPCTL_TOKEN`, `MODEL_*`, `PROXY_*`…,
   * plus `PORT` and `HOST`), read as {@link optionsFromVars} reads them. Default `process.env`;
   * `{}` reads none. The options given here win over them, key by key (`proxy` and `model` too).
   */
  vars?: Record<string, string | undefined>;
}

/** A listening server. */
export interface RunningServer {
  /** E.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A server that could not start listening: the port is taken, or not ours to use. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

/**
 * Serve the app over HTTP from Node. Reads the documented variables (`LOOPCTL_TOKEN`, `MODEL_*`,
 * `PROXY_*`, `CORS_ORIGINS`, `ALLOWED_HOSTS`…) from `process.env` (or `vars`), under the options
 * given. Listens on `port`, else `PORT`, on `hostname`, else `HOST` (their defaults, a loopback
 * address: `ENTRY_SETTINGS`). Rejects with a {@link ListenError} saying what to do when the port is in use or
 * not allowed, a `ConfigError` naming a variable with a bad value, and a `RangeError` for a
 * port that is not one.
 *
 * @example
 * // PROXY_OPENAI_BASE_URL=https://api.openai.com/v1 LOOPCTL_TOKEN=… node server.mjs
 * const server = await startNodeServer({ registry, port: 0 })
 * await fetch(`${server.url}/healthz`)
 * await server.close()
 */
export async function startNodeServer(options: NodeServerOptions): Promise<RunningServer> {
  const { vars = process.env, ...given } = options;
  const fromVars = optionsFromVars(vars);
  const {
    port: givenPort,
    hostname,
    ...appOptions
  } = mergeOptions({ hostname: varText(vars.HOST) ?? ENTRY_SETTINGS.host.default }, fromVars, {
    ...given,
    // One level deeper for the nested settings: `proxy: { fetch }` keeps PROXY_OPENAI_BASE_URL.
    model: fromVars.model || given.model ? mergeOptions({}, fromVars.model, given.model) : undefined,
    proxy: fromVars.proxy || given.proxy ? mergeOptions({}, fromVars.proxy, given.proxy) : undefined,
  });
  const port = listenPort(givenPort, varText(vars.PORT));
  // The proxy's upstream calls go through one keep-alive node:http pool, unless a fetch was given.
  const upstream =
    appOptions.fetch || appOptions.proxy?.fetch
      ? undefined
      : (await import('./proxy/node-upstream-fetch.js')).nodeUpstreamFetch();
  // On loopback, only loopback Host names: a DNS-rebound web page is refused.
  const allowedHosts = appOptions.allowedHosts ?? (isLoopbackAddress(hostname) ? LOOPBACK_HOSTS : undefined);
  // PROXY_LEARN=on keeps what the proxy learns in files, so it survives a restart.
  const learn = appOptions.proxy?.learn === 'on' ? fileLearning(appOptions.proxy) : undefined;
  const proxy =
    upstream || learn
      ? { ...appOptions.proxy, ...(upstream ? { fetch: upstream.fetch } : {}), ...(learn ? { learn } : {}) }
      : undefined;
  // /mcp: `${VAR}` in the servers' URLs and headers from the same variables; one process holds
  // its sessions' found tools in memory.
  const mcpGateway = { vars, sessions: 'memory' as const, ...appOptions.mcpGateway };
  const app = createApp({
    ...appOptions,
    ...(allowedHosts ? { allowedHosts } : {}),
    ...(proxy ? { proxy } : {}),
    mcpGateway,
  });
  const { serve } = await import('@hono/node-server');
  let server!: ReturnType<typeof serve>;
  const info = await new Promise<AddressInfo>((done, fail) => {
    server = serve({ fetch: app.fetch, port, hostname }, done);
    server.once('error', (error: NodeJS.ErrnoException) => {
      upstream?.close();
      fail(listenError(error, hostname, port));
    });
  });
  // Node's HTTP parser refuses some requests before the app sees them (a malformed
  // Content-Length, oversized headers): answer those in the API's JSON error shape too.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: import('node:stream').Duplex) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({
      error: tooLarge
        ? { code: 'headers_too_large', message: 'the request headers are too large' }
        : { code: 'bad_request', message: 'the request is not valid HTTP/1.1 (e.g. a malformed Content-Length)' },
    });
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(
      `HTTP/1.1 ${status}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  const host = info.address.includes(':') ? `[${info.address}]` : info.address;
  return {
    url: `http://${host}:${info.port}`,
    port: info.port,
    close: () =>
      new Promise<void>((done, fail) => {
        server.close((error) => (error ? fail(error) : done()));
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        upstream?.close();
      }),
  };
}

/** `port`, else the `PORT` variable, else its default; a value that is no port is a RangeError. */
function listenPort(port: number | undefined, fromEnv: string | undefined): number {
  const value = port ?? (fromEnv ? Number(fromEnv) : ENTRY_SETTINGS.port.default);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new RangeError(
      `${port === undefined ? `PORT=${JSON.stringify(fromEnv)}` : `port ${port}`} is not a port number (0 to 65535; 0 picks a free one)`,
    );
  }
  return value;
}

function listenError(error: NodeJS.ErrnoException, hostname: string, port: number): Error {
  const where = `${hostname}:${port}`;
  if (error.code === 'EADDRINUSE') {
    return new ListenError(
      `cannot listen on ${where}: the port is in use (EADDRINUSE); stop what listens there, or choose another port (the port option or PORT; 0 picks a free one)`,
      {
        cause: error,
      },
    );
  }
  if (error.code === 'EACCES')
    return new ListenError(
      `cannot listen on ${where}: not allowed (EACCES); ports below 1024 need privileges, choose another`,
      { cause: error },
    );
  if (error.code === 'EADDRNOTAVAIL')
    return new ListenError(`cannot listen on ${where}: ${hostname} is not an address of this machine (EADDRNOTAVAIL)`, {
      cause: error,
    });
  return new ListenError(`cannot listen on ${where}: ${error.message}`, { cause: error });
}

/**
 * USE-lite (int8) from a built model folder (`npx loopctl model --out DIR` or, in this
 * repository, `npm run build:model`), loaded on first use: on onnxruntime-node when it is
 * installed (several times faster), else on WASM after one warning. Throws at once, naming the
 * folder and the command that builds it, when `modelPath` holds no model (check first where the
 * model is optional). A folder that fails to load later (damaged, removed) makes `embedding` and
 * `hybrid` answer 503 "the embedding model is unavailable", and the server log (once) names the
 * folder, the reason and the fix.
 *
 * @example
 * const server = await startNodeServer({ registry, embedder: useLiteFromDisk('models/use-lite') })
 */
export function useLiteFromDisk(modelPath: string): EmbedderSource {
  const folder = resolve(modelPath);
  const build = `npx loopctl model --out ${modelPath}`;
  if (!existsSync(resolve(folder, 'vocab.json'))) {
    const what = existsSync(folder) ? `${folder} holds no USE-lite model (no vocab.json)` : `${folder} does not exist`;
    throw new Error(
      `useLiteFromDisk: ${what}; build the model there with ${build} (or npm run build:model in the loopctl repository)`,
    );
  }
  return async () => {
    const { useLiteEmbedder } = await import('../adapters/use-lite.js');
    const embedder = useLiteEmbedder({ modelPath: folder, dtype: 'int8', device: 'auto' });
    try {
      await embedder.load();
    } catch (error) {
      const reason = errorMessage(error);
      throw new EmbedderUnavailableError(
        `the USE-lite model in ${modelPath} cannot be loaded (${reason}); rebuild it with ${build} --force`,
        { cause: error },
      );
    }
    return embedder;
  };
}

/**
 * A precomputed vectors file on disk (`loopctl vectors`), read when the embedding selector first
 * needs it; a missing or bad file becomes the selection's warning, never a failed request.
 *
 * @example
 * await startNodeServer({ registry, embedder, vectors: vectorsFromDisk('build/demo/vectors/demo.lcv') })
 */
export function vectorsFromDisk(path: string): VectorsSource {
  return async () => new Uint8Array(await readFile(path));
}

/** The file store of `PROXY_LEARN_DIR` (default `.loopctl/learned`) with the settings' bounds. */
function fileLearning(proxy: ProxySettings) {
  return fileTrafficStore(proxy.learnDir ?? PROXY_SETTINGS.learnDir.default, learnBounds(proxy));
}
