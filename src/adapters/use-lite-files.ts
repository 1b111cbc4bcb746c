/**
 * The USE-lite model folder as files: where a file of it is, how it is read (fetch, or `node:fs`
 * for a local path), and what the owner of the process hears when the folder holds no model.
 */

import { concatBytes } from '../concat-bytes.js';
import { errorMessage } from '../describe-error.js';
import { isNode, nodeImport } from './ort-runtime.js';

/** Loads one file of the model folder; the default is `fetch`, or `node:fs` for local paths. */
export type ModelFileLoader = (url: string, init?: { signal?: AbortSignal }) => Promise<Response>;

/** A URL with a scheme (`https:`, `file:`, `blob:`), not a Windows drive letter (`C:\`). */
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const DRIVE = /^[a-z]:[\\/]/i;
/** A URL a server answers (`https://…`), not a file on this machine. */
const REMOTE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Joins a file name onto the model folder, whether URL, relative URL or filesystem path.
 *
 * @example
 * resolveModelFile('https://app.test/models/use-lite', 'vocab.json')
 * // 'https://app.test/models/use-lite/vocab.json'
 */
export function resolveModelFile(base: string | URL, file: string): string {
  const root = typeof base === 'string' ? base : base.href;
  if (HAS_SCHEME.test(root) && !DRIVE.test(root)) {
    return new URL(file, root.endsWith('/') ? root : `${root}/`).href;
  }
  return `${root.replace(/[\\/]+$/, '')}/${file}`;
}

/**
 * The default {@link ModelFileLoader}: `fetch`, against the page's base URL in a browser; in
 * Node a local path or `file:` URL is read from disk, since Node's fetch does not read them.
 *
 * @example
 * const bytes = await (await defaultModelLoader('models/use-lite/vocab.json')).arrayBuffer()
 */
export async function defaultModelLoader(url: string, init?: { signal?: AbortSignal }): Promise<Response> {
  const local = url.startsWith('file:') || (isNode() && !REMOTE.test(url));
  if (local) {
    // Node's fetch does not read file: URLs; read the folder directly.
    const { readFile } = await nodeImport<typeof import('node:fs/promises')>('node:fs/promises');
    const { fileURLToPath } = await nodeImport<typeof import('node:url')>('node:url');
    const bytes = await readFile(
      url.startsWith('file:') ? fileURLToPath(url) : url,
      init?.signal ? { signal: init.signal } : {},
    );
    return new Response(bytes, { headers: { 'content-length': String(bytes.byteLength) } });
  }
  const base = typeof document !== 'undefined' ? document.baseURI : undefined;
  return fetch(base ? new URL(url, base).href : url, init?.signal ? { signal: init.signal } : {});
}

/**
 * Reads a response fully, reporting bytes as they arrive.
 *
 * @example
 * const model = await readModelBytes(response, (done, total) => console.log(done, total))
 */
export async function readModelBytes(
  response: Response,
  onBytes?: (done: number, total: number) => void,
): Promise<Uint8Array> {
  if (!response.ok) throw new Error(`use-lite: ${response.url || 'model file'} -> HTTP ${response.status}`);
  const total = Number(response.headers.get('content-length') ?? 0);
  if (!response.body || !onBytes) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let done = 0;
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    chunks.push(next.value);
    done += next.value.byteLength;
    onBytes(done, Math.max(total, done));
  }
  onBytes(done, done);
  return concatBytes(chunks, done);
}

/**
 * Model folders already reported unreadable in this process: once per path, so a server that
 * builds a fresh embedder for each retry does not repeat it.
 */
const unreadablePathsTold = new Set<string>();

/**
 * The error for a folder whose files could not be read, told to `warn` once per process and path.
 * A folder with no model is a set-up mistake that selectors would only note in their output
 * (falling open, or ranking lexically) on every turn: the console of the process that owns the
 * embedder hears it once, with the path tried and the fix. Clients of a server never see it.
 *
 * @example
 * throw modelUnreadable('models/use-lite', error, console.warn) // 'use-lite: no model at models/use-lite (…)'
 */
export function modelUnreadable(modelPath: string | URL, error: unknown, warn: (message: string) => void): Error {
  const where = typeof modelPath === 'string' ? modelPath : modelPath.href;
  const reason = errorMessage(error);
  if (!unreadablePathsTold.has(where)) {
    unreadablePathsTold.add(where);
    const fix = REMOTE.test(where)
      ? `build it with npx loopctl model and serve that folder at ${where}`
      : `build it there with npx loopctl model --out ${where}`;
    warn(
      `use-lite: no model at ${where} (${reason}); selectors using this embedder fall open or rank ` +
        `lexically until it loads: ${fix}, or set modelPath to the folder that holds it`,
    );
  }
  return new Error(`use-lite: no model at ${where} (${reason})`, { cause: error });
}

/**
 * The vocabulary and the ONNX file of a model folder, read at once (on a page each is a separate
 * download); a failure to read either is {@link modelUnreadable}.
 *
 * @example
 * const { vocab, model } = await readModelFolder({ modelPath: 'models/use-lite', loader: defaultModelLoader, warn: console.warn }, 'onnx/model_quantized.onnx')
 */
export async function readModelFolder(
  folder: {
    readonly modelPath: string | URL;
    readonly loader: ModelFileLoader;
    readonly warn: (message: string) => void;
    readonly onModelBytes?: (done: number, total: number) => void;
  },
  file: string,
): Promise<{ vocab: Uint8Array; model: Uint8Array }> {
  const { modelPath, loader, onModelBytes } = folder;
  const [vocab, model] = await Promise.all([
    loader(resolveModelFile(modelPath, 'vocab.json')).then((response) => readModelBytes(response)),
    loader(resolveModelFile(modelPath, file)).then((response) => readModelBytes(response, onModelBytes)),
  ]).catch((error: unknown) => {
    throw modelUnreadable(modelPath, error, folder.warn);
  });
  return { vocab, model };
}
