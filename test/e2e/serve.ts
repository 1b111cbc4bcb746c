/**
 * A tiny static file server for the e2e suite: serves a built folder on 127.0.0.1 with the
 * COOP/COEP headers that make the page cross-origin isolated (threaded WASM), the right
 * content types (WASM streaming compile needs `application/wasm`) and nothing else.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** A running server. */
export interface StaticServer {
  /** Base URL, e.g. `http://127.0.0.1:41234/` (trailing slash). */
  readonly url: string;
  /** Paths requested so far (for assertions on what the page fetched). */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Options for {@link serveStatic}. */
export interface ServeOptions {
  /** Send COOP/COEP (default true). */
  isolate?: boolean;
  /** Port (default: any free one). */
  port?: number;
  /** Extra in-memory files by URL path (e.g. `{ '/e2e-tools.json': '[…]' }`), served before the folder. */
  files?: Readonly<Record<string, string | Uint8Array>>;
  /**
   * Forward requests under `prefix` to `target` (an http origin), so a page can reach a local
   * model server same-origin (no CORS) — e.g. `{ prefix: '/v1/', target: model.url }`.
   */
  proxy?: { readonly prefix: string; readonly target: string };
  /**
   * Holds a request back: called with each path; a promise delays that response until it
   * settles (e.g. to keep the model downloading while a test looks at what else the page does).
   */
  hold?: (pathname: string) => Promise<void> | undefined;
}

/**
 * Serve `root` on 127.0.0.1.
 *
 * @example
 * const server = await serveStatic('build/demo')
 * await page.goto(server.url)
 * await server.close()
 */
export async function serveStatic(root: string, options: ServeOptions = {}): Promise<StaticServer> {
  const base = resolve(root);
  const isolate = options.isolate ?? true;
  const requests: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    requests.push(pathname);
    await options.hold?.(pathname);
    const headers: Record<string, string> = { 'cache-control': 'no-store' };
    if (isolate) {
      headers['cross-origin-opener-policy'] = 'same-origin';
      headers['cross-origin-embedder-policy'] = 'require-corp';
      headers['cross-origin-resource-policy'] = 'same-origin';
    }
    const proxy = options.proxy;
    if (proxy && pathname.startsWith(proxy.prefix)) {
      const upstream = httpRequest(
        new URL(req.url ?? '/', proxy.target),
        { method: req.method, headers: { ...req.headers, host: new URL(proxy.target).host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...headers });
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502, headers).end('proxy error'));
      req.pipe(upstream);
      return;
    }
    const extra = options.files?.[pathname];
    if (extra !== undefined) {
      const ext = extname(pathname);
      res.writeHead(200, { ...headers, 'content-type': MIME[ext] ?? 'application/octet-stream' }).end(extra);
      return;
    }
    let file = normalize(join(base, pathname));
    if (file !== base && !file.startsWith(base + sep)) {
      res.writeHead(403, headers).end('forbidden');
      return;
    }
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        file = join(file, 'index.html');
        info = await stat(file);
      }
      res.writeHead(200, {
        ...headers,
        'content-type': MIME[extname(file)] ?? 'application/octet-stream',
        'content-length': String(info.size),
      });
      if (req.method === 'HEAD') res.end();
      else createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, '127.0.0.1', () => done());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
