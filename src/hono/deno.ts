/**
 * The Deno helper: {@link createApp} on `Deno.serve`, configured from environment variables.
 * Web-standard code only; `Deno` is read from the global scope when serving.
 */

import { mergeOptions } from '../options.js';
import { isLoopbackAddress, LOOPBACK_HOSTS } from './allowed-hosts.js';
import type { AppOptions } from './app.js';
import { createApp } from './app.js';
import { varText } from './config-vars.js';
import { optionsFromVars } from './env-options.js';
import { denoFolderFiles, folderTrafficStore } from './proxy/learn/folder-traffic-store.js';
import { learnBounds } from './proxy/proxy-settings.js';
import { ENTRY_SETTINGS, PROXY_SETTINGS } from './settings.js';

/** The few Deno APIs used here, typed structurally. */
interface DenoLike {
  env: { toObject(): Record<string, string> };
  serve(
    options: {
      port?: number;
      hostname?: string;
      signal?: AbortSignal;
      onListen?: (addr: { hostname: string; port: number }) => void;
    },
    handler: (request: Request) => Response | Promise<Response>,
  ): { finished: Promise<void>; addr: { hostname: string; port: number }; shutdown(): Promise<void> };
}

function deno(): DenoLike {
  const found = (globalThis as { Deno?: DenoLike }).Deno;
  if (!found) throw new Error('loopctl/hono: serveDeno needs the Deno runtime');
  return found;
}

/** Options for {@link denoHandler}: the app's, with variables read from the environment. */
export type DenoAppOptions = Partial<AppOptions> &
  Pick<AppOptions, 'registry'> & { vars?: Record<string, string | undefined> };

/**
 * A request handler for `Deno.serve`: the variables (default the environment: `LOOPCTL_TOKEN`,
 * `MODEL_BASE_URL`…) become app options, and `options` override them. The app reads
 * `request.signal` as "the client went away" (to stop upstream work); Deno 2.9 still also aborts
 * it after a successful response and warns once about it. Both are handled; run with
 * `--unstable-no-legacy-abort` to opt in to the coming behaviour and drop the warning.
 *
 * @example
 * Deno.serve({ port: 8787 }, denoHandler({ registry }))
 */
export function denoHandler(options: DenoAppOptions): (request: Request) => Promise<Response> {
  const { vars, ...rest } = options;
  const env = vars ?? deno().env.toObject();
  // /mcp: `${VAR}` from the same variables; one process holds its sessions' found tools.
  const mcpGateway = { vars: env, sessions: 'memory' as const, ...rest.mcpGateway };
  const merged = mergeOptions(optionsFromVars(env), { ...rest, mcpGateway });
  // PROXY_LEARN=on keeps what the proxy learns in files (PROXY_LEARN_DIR), as on Node, so it
  // survives a restart: Deno's own file API, no node:fs.
  const proxy = merged.proxy;
  const learn =
    proxy?.learn === 'on'
      ? folderTrafficStore(proxy.learnDir ?? PROXY_SETTINGS.learnDir.default, denoFolderFiles(), learnBounds(proxy))
      : undefined;
  const app = createApp(learn ? { ...merged, proxy: { ...proxy, learn } } : merged);
  return async (request) => app.fetch(request);
}

/**
 * Serve the app with `Deno.serve` on `PORT`/`HOST` (defaults: `ENTRY_SETTINGS`, a loopback address). On a loopback
 * address the app answers only loopback `Host` names unless `ALLOWED_HOSTS` or `allowedHosts`
 * says otherwise (a DNS-rebound web page is refused).
 *
 * @example
 * serveDeno({ registry }) // deno run --allow-net --allow-env --unstable-no-legacy-abort main.ts
 */
export function serveDeno(
  options: DenoAppOptions & { port?: number; hostname?: string },
): ReturnType<DenoLike['serve']> {
  const { port, hostname, ...rest } = options;
  const vars = rest.vars ?? deno().env.toObject();
  const host = hostname ?? vars.HOST ?? ENTRY_SETTINGS.host.default;
  const loopbackOnly = !rest.allowedHosts && varText(vars.ALLOWED_HOSTS) === undefined && isLoopbackAddress(host);
  return deno().serve(
    { port: port ?? Number(vars.PORT ?? ENTRY_SETTINGS.port.default), hostname: host },
    denoHandler({ ...rest, vars, ...(loopbackOnly ? { allowedHosts: LOOPBACK_HOSTS } : {}) }),
  );
}
