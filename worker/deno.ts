/**
 * The demo deployment's Deno entry: the loopctl API over the demo tools on `Deno.serve`.
 *
 *   LOOPCTL_DEV=1 npx deno run --config test/deno/deno.json --cached-only --allow-net --allow-env --allow-read --unstable-no-legacy-abort worker/deno.ts
 *
 * (The embedding selector needs only `--allow-read`: USE-lite tokenises in plain JS, no FFI.)
 * Like the Workers entry it refuses `/v1/*` (503) until `LOOPCTL_TOKEN` is set; `LOOPCTL_DEV=1`
 * generates and prints a dev token instead.
 */
import { registerDemoTools } from '../demo/demo-tools.js';
import { generateToken, serveDeno } from '../src/hono/index.js';
import { ToolRegistry } from '../src/index.js';
import type { EmbedderSource } from '../src/selector-kit.js';

// The few Deno APIs used here, typed structurally (the repo typechecks with Node's types).
declare const Deno: { env: { toObject(): Record<string, string> }; stat(path: string): Promise<unknown> };

/**
 * USE-lite from the built model folder, when it exists (reading it needs `--allow-read`).
 * Undefined otherwise: `embedding` answers 503.
 *
 * @example
 * const embedder = await useLiteIfAvailable('models/use-lite')
 */
export async function useLiteIfAvailable(modelPath: string): Promise<EmbedderSource | undefined> {
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

/** The demo tools, as every demo entry serves them. */
export const demoRegistry = (): ToolRegistry => registerDemoTools(new ToolRegistry());

if ((import.meta as { main?: boolean }).main) {
  const vars: Record<string, string | undefined> = Deno.env.toObject();
  if (!vars.LOOPCTL_TOKEN && vars.LOOPCTL_DEV === '1') {
    vars.LOOPCTL_TOKEN = generateToken();
    console.log(`dev token (generated): ${vars.LOOPCTL_TOKEN}`);
  }
  const embedder = await useLiteIfAvailable(vars.LOOPCTL_MODEL_PATH ?? 'models/use-lite');
  const server = serveDeno({ registry: demoRegistry(), vars, ...(embedder ? { embedder } : {}) });
  console.log(`loopctl API (Deno) on http://${server.addr.hostname}:${server.addr.port}`);
  console.log(
    vars.LOOPCTL_TOKEN
      ? '  authenticate with: Authorization: Bearer <LOOPCTL_TOKEN>'
      : '  LOOPCTL_TOKEN is not set: /v1/* answers 503',
  );
  console.log(`  embedding selector: ${embedder ? 'USE-lite (int8)' : 'off (build the model: npm run build:model)'}`);
}
