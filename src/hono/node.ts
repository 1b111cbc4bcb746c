/**
 * The Node helper (`loopctl/hono/node`): {@link createApp} on `@hono/node-server` (an optional
 * peer dependency, imported when a server starts), and USE-lite from a model folder on disk.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { AppOptions } from './app.js';
import { createApp } from './app.js';
import type { VectorsSource } from '../embed/vectors-source.js';
import type { EmbedderSource } from '../select/named-selectors.js';
import { mergeOptions } from '../options.js';

/** Options for {@link startNodeServer}: the app's, plus where to listen. */
export interface NodeServerOptions extends AppOptions {
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Default `127.0.0.1` (loopback only). */
  hostname?: string;
}

/** A listening server. */
export interface RunningServer {
  /** E.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serve the app over HTTP from Node.
 *
 * @example
 * const server = await startNodeServer({ registry, port: 0, token: 'secret' })
 * await fetch(`${server.url}/healthz`)
 * await server.close()
 */
export async function startNodeServer(options: NodeServerOptions): Promise<RunningServer> {
  const { port, hostname, ...appOptions } = mergeOptions({ port: 8787, hostname: '127.0.0.1' }, options);
  // The proxy's upstream calls go through one keep-alive node:http pool, unless a fetch was given.
  const upstream = appOptions.fetch || appOptions.proxy?.fetch ? undefined : (await import('./proxy/node-upstream-fetch.js')).nodeUpstreamFetch();
  const app = createApp(upstream ? { ...appOptions, proxy: { ...appOptions.proxy, fetch: upstream.fetch } } : appOptions);
  const { serve } = await import('@hono/node-server');
  let server!: ReturnType<typeof serve>;
  const info = await new Promise<AddressInfo>((done) => {
    server = serve({ fetch: app.fetch, port, hostname }, done);
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

/**
 * USE-lite (int8) from a built model folder (`npx loopctl model --out DIR` or, in this
 * repository, `npm run build:model`), loaded on first use: on onnxruntime-node when it is
 * installed (several times faster), else on WASM after one warning. Undefined when the folder
 * is missing, so `embedding` and `hybrid` answer 503.
 *
 * @example
 * const server = await startNodeServer({ registry, embedder: useLiteFromDisk('models/use-lite') })
 */
export function useLiteFromDisk(modelPath: string): EmbedderSource | undefined {
  const folder = resolve(modelPath);
  if (!existsSync(resolve(folder, 'vocab.json'))) return undefined;
  return async () => {
    const { useLiteEmbedder } = await import('../adapters/use-lite.js');
    const embedder = useLiteEmbedder({ modelPath: folder, dtype: 'int8', device: 'auto' });
    await embedder.load();
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
