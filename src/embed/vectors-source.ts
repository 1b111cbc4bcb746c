/**
 * Where a precomputed vectors file comes from: bytes already in hand, a URL (fetched), a
 * `Response`, or a function returning one of those (a Worker's assets binding, a KV read).
 * Loading never throws: an unreachable, missing or refused file becomes a warning, and the
 * selector embeds what it needs as if there were no file.
 */

import { errorMessage } from '../describe-error.js';
import type { Embedder } from './embedder.js';
import type { VectorsFile } from './vectors-file.js';
import { readVectorsFile } from './vectors-file.js';

/** Something that resolves to vectors-file bytes. */
export type VectorsBytes = Uint8Array | ArrayBuffer | Response;

/**
 * A vectors file for a selector: bytes, a `Response`, a URL string or `URL` (fetched with the
 * global `fetch`), or a function returning any of these (or `undefined`/`null`: no file, no
 * warning; e.g. a KV key that is not set).
 *
 * @example
 * new EmbeddingSelector(embedder, { vectors: new URL('vectors/tools.lcv', document.baseURI) })
 * new EmbeddingSelector(embedder, { vectors: () => env.ASSETS.fetch('https://assets.invalid/vectors/tools.lcv') })
 */
export type VectorsSource =
  | VectorsBytes
  | string
  | URL
  | ((options: {
      signal?: AbortSignal;
    }) => VectorsBytes | string | URL | undefined | null | Promise<VectorsBytes | string | URL | undefined | null>);

/** The outcome of loading a source: the verified file (if any) and what went wrong. */
export interface LoadedVectors {
  readonly file: VectorsFile | undefined;
  readonly warnings: readonly string[];
}

/**
 * Load and verify a vectors file for `embedder`. Never rejects except with the signal's reason.
 *
 * @example
 * const { file, warnings } = await loadVectors('/vectors/tools.lcv', embedder)
 */
export async function loadVectors(
  source: VectorsSource,
  embedder: Embedder,
  options: { signal?: AbortSignal } = {},
): Promise<LoadedVectors> {
  const { signal } = options;
  let bytes: Uint8Array | undefined;
  try {
    bytes = await toBytes(typeof source === 'function' ? await source(signal ? { signal } : {}) : source, signal);
  } catch (error) {
    signal?.throwIfAborted();
    return {
      file: undefined,
      warnings: [`vectors file could not be read (${errorMessage(error)}); embedding the corpus instead`],
    };
  }
  if (bytes === undefined) return { file: undefined, warnings: [] };
  const read = readVectorsFile(bytes, { embedderId: embedder.id, dimensions: embedder.dimensions });
  if (!read.ok)
    return { file: undefined, warnings: [`vectors file refused (${read.reason}); embedding the corpus instead`] };
  return { file: read.file, warnings: [] };
}

async function toBytes(
  value: VectorsBytes | string | URL | undefined | null,
  signal: AbortSignal | undefined,
): Promise<Uint8Array | undefined> {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof value === 'string' || value instanceof URL) {
    const base = typeof document !== 'undefined' ? document.baseURI : undefined;
    const url = base ? new URL(value, base) : value;
    return toBytes(await fetch(url, signal ? { signal } : {}), signal);
  }
  if (typeof Response !== 'undefined' && value instanceof Response) {
    if (!value.ok) throw new Error(`HTTP ${value.status}${value.url ? ` for ${value.url}` : ''}`);
    return new Uint8Array(await value.arrayBuffer());
  }
  throw new TypeError('a vectors source must be bytes, a Response, a URL or a function returning one');
}
