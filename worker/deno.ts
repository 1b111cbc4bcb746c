/**
 * The Deno entry: the same app on `Deno.serve`.
 *
 *   LOOPCTL_DEV=1 npx deno run --config test/deno/deno.json --cached-only --allow-net --allow-env --allow-read worker/deno.ts
 *
 * (The embedding selector needs only `--allow-read`: USE-lite tokenises in plain JS, no FFI.)
 * Reads the same variables as the other entries. Like the Workers entry it refuses `/v1/*`
 * (503) until `LOOPCTL_TOKEN` is set; `LOOPCTL_DEV=1` generates and prints a dev token instead.
 */
import type { AppOptions } from './app.js';
import { createApp } from './app.js';
import { generateToken } from './bearer-auth.js';
import { optionsFromVars } from './env-options.js';

// The few Deno APIs used here, typed structurally (the repo typechecks with Node's types).
declare const Deno: {
  env: { toObject(): Record<string, string> };
  stat(path: string): Promise<unknown>;
  serve(
    options: { port?: number; hostname?: string; signal?: AbortSignal; onListen?: (addr: { hostname: string; port: number }) => void },
    handler: (request: Request) => Response | Promise<Response>,
  ): { finished: Promise<void>; addr: { hostname: string; port: number }; shutdown(): Promise<void> };
};

/**
 * A request handler for `Deno.serve` built from variables (default: the environment).
 *
 * @example
 * Deno.serve({ port: 0 }, denoHandler({ LOOPCTL_TOKEN: 'secret' }))
 */
export function denoHandler(vars: Record<string, string | undefined> = Deno.env.toObject(), extra: AppOptions = {}): (request: Request) => Promise<Response> {
  const app = createApp({ ...optionsFromVars(vars), ...extra });
  return async (request) => app.fetch(request);
}

/**
 * USE-lite from the built model folder, when it exists (reading it needs `--allow-read`).
 * Undefined otherwise: `embedding` answers 503.
 *
 * @example
 * const embedder = await useLiteIfAvailable('models/use-lite')
 */
export async function useLiteIfAvailable(modelPath: string): Promise<AppOptions['embedder']> {
  try {
    await Deno.stat(`${modelPath}/vocab.json`);
  } catch {
    return undefined;
  }
  return async () => {
    const { useLiteEmbedder } = await import('../src/adapters/use-lite.js');
    return useLiteEmbedder({ modelPath, dtype: 'int8', device: 'wasm' });
  };
}

if ((import.meta as { main?: boolean }).main) {
  const vars: Record<string, string | undefined> = Deno.env.toObject();
  if (!vars.LOOPCTL_TOKEN && vars.LOOPCTL_DEV === '1') {
    vars.LOOPCTL_TOKEN = generateToken();
    console.log(`dev token (generated): ${vars.LOOPCTL_TOKEN}`);
  }
  const embedder = await useLiteIfAvailable(vars.LOOPCTL_MODEL_PATH ?? 'models/use-lite');
  Deno.serve(
    {
      port: Number(vars.PORT ?? 8787),
      hostname: vars.HOST ?? '127.0.0.1',
      onListen: ({ hostname, port }) => {
        console.log(`loopctl API (Deno) on http://${hostname}:${port}`);
        console.log(vars.LOOPCTL_TOKEN ? '  authenticate with: Authorization: Bearer <LOOPCTL_TOKEN>' : '  LOOPCTL_TOKEN is not set: /v1/* answers 503');
        console.log(`  embedding selector: ${embedder ? 'USE-lite (int8)' : 'off (build the model: npm run build:model)'}`);
      },
    },
    denoHandler(vars, embedder ? { embedder } : {}),
  );
}
