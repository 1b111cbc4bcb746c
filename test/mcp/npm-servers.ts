/**
 * Published MCP servers from npm (installed as dev dependencies), started as a user would run
 * them but without npx or the network: `process.execPath` and the package's bin file.
 *
 * - `serverBin(name)`: the bin JS file of `@modelcontextprotocol/server-<name>`, for stdio mounts.
 * - `startEverythingHttp()`: `@modelcontextprotocol/server-everything` in `streamableHttp` mode,
 *   bound to 127.0.0.1 on a free port (the package listens on every interface and has no host
 *   option, so `fixtures/loopback-listen.mjs` is preloaded to bind it to loopback).
 *
 * @example
 * const everything = await startEverythingHttp()
 * await mountMcp(registry, { url: everything.url, prefix: 'everything' })
 * everything.kill() // SIGKILL, as a crash would
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * Absolute path of the bin JS file of `@modelcontextprotocol/server-<name>`.
 *
 * @example
 * spawn(process.execPath, [serverBin('memory')])
 */
export function serverBin(name: 'everything' | 'filesystem' | 'memory'): string {
  const manifest = require.resolve(`@modelcontextprotocol/server-${name}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  const file = Object.values(bin)[0];
  if (!file) throw new Error(`@modelcontextprotocol/server-${name} has no bin`);
  return join(dirname(manifest), file);
}

/** A running server-everything over Streamable HTTP. */
export interface EverythingServer {
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  readonly process: ChildProcess;
  /** Resolves with the exit signal or code once the process is gone. */
  readonly exited: Promise<NodeJS.Signals | number | null>;
  /** Kill the process at once (SIGKILL), as a crash would. */
  kill(): void;
}

/**
 * Start server-everything in `streamableHttp` mode on 127.0.0.1, on a free port.
 *
 * @example
 * const server = await startEverythingHttp()
 */
export async function startEverythingHttp(): Promise<EverythingServer> {
  const preload = fileURLToPath(new URL('./fixtures/loopback-listen.mjs', import.meta.url));
  const child = spawn(process.execPath, ['--import', preload, serverBin('everything'), 'streamableHttp'], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start within 20 s: ${stderr}`)), 20_000);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /loopback-listen port=(\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code} before listening: ${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    process: child,
    exited,
    kill: () => void child.kill('SIGKILL'),
  };
}
