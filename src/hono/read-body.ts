/**
 * The one request-body reader of the HTTP API and the proxy: a size limit, a drain of oversized
 * uploads, memory held only as bytes arrive (within a shared budget for all unfinished uploads),
 * and strict UTF-8. Each caller words the refusal in its own error shape.
 */
import type { UploadBudget } from './upload-budget.js';

/** Why a body was refused: over the limit, empty, not UTF-8, or the upload budget is spent. */
export class BodyReadError extends Error {
  override readonly name = 'BodyReadError';
  constructor(
    readonly reason: 'too_large' | 'empty' | 'not_utf8' | 'busy',
    message: string,
  ) {
    super(message);
  }
}

/** Options for {@link readBody}. */
export interface ReadBodyOptions {
  /** Largest accepted body in bytes. */
  readonly maxBytes: number;
  /**
   * After a streamed body goes over `maxBytes`, read (and drop) up to this many more bytes before
   * refusing it, so a proxy that forwards the upload (wrangler dev's, in front of workerd) sees
   * it consumed instead of an answer in the middle of it, which it resets. Past that the upload
   * is cancelled. Default 16 × `maxBytes`; 0 cancels at once.
   */
  readonly drainBytes?: number;
  /**
   * The bytes all unfinished uploads may hold at once (see `upload-budget.ts`). The buffer's
   * growth is taken from it as bytes arrive, and given back once the body is read; a body that
   * would pass it is refused (`busy`) after dropping what it held. Default none: no shared cap.
   */
  readonly budget?: UploadBudget;
}

/**
 * Read `request`'s body, at most `maxBytes` of it. A declared `Content-Length` over the limit is
 * refused before reading (the client may be withholding the body). Bytes are held as they
 * arrive, in a buffer grown by doubling up to the declared length (or `maxBytes` without one),
 * never allocated from the declaration alone: a client declaring 8 MiB and sending little costs
 * little. A body that sends more than it declared, or a chunked one past the limit, is refused;
 * the latter once drained (see {@link ReadBodyOptions.drainBytes}). The stream has one reader,
 * this one, so the drain never races another read. Throws {@link BodyReadError}.
 *
 * @example
 * const bytes = await readBody(c.req.raw, { maxBytes: 256 * 1024 })
 */
export async function readBody(request: Request, options: ReadBodyOptions): Promise<Uint8Array<ArrayBuffer>> {
  const { maxBytes } = options;
  const tooLarge = () => new BodyReadError('too_large', `the body exceeds ${Math.floor(maxBytes / 1024)} KiB`);
  const declared = request.headers.get('content-length');
  const length = declared === null || declared.trim() === '' ? Number.NaN : Number(declared);
  if (length > maxBytes) throw tooLarge();
  const framed = Number.isSafeInteger(length) && length >= 0 && !request.headers.has('transfer-encoding');
  const bytes =
    !request.body || (framed && length === 0)
      ? new Uint8Array(0)
      : await readGrowing(request.body.getReader(), {
          cap: framed ? length : maxBytes,
          framed,
          drainBytes: options.drainBytes ?? 16 * maxBytes,
          budget: options.budget,
          tooLarge,
        });
  if (bytes.byteLength > maxBytes) throw tooLarge(); // a runtime that let more through than it declared
  if (bytes.byteLength === 0) throw new BodyReadError('empty', 'the body is empty');
  return bytes;
}

/** The first buffer a body without a (smaller) declared length gets: most bodies fit in it. */
const FIRST_BUFFER_BYTES = 64 * 1024;

interface GrowingRead {
  /** The most bytes the body may have: its declared length, or the limit. */
  readonly cap: number;
  /** Whether `cap` is a declared length (more is refused at once) or the limit (drained first). */
  readonly framed: boolean;
  readonly drainBytes: number;
  readonly budget: UploadBudget | undefined;
  readonly tooLarge: () => BodyReadError;
}

// The body as it streams, in a buffer that doubles as bytes arrive (up to `cap`), each growth
// taken from the budget and all of it given back at the end, whatever the end.
async function readGrowing(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  { cap, framed, drainBytes, budget, tooLarge }: GrowingRead,
): Promise<Uint8Array<ArrayBuffer>> {
  let bytes = new Uint8Array(0);
  let at = 0;
  let taken = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      const needed = at + value.byteLength;
      if (needed > cap) {
        if (framed) {
          await reader.cancel().catch(() => undefined);
          throw tooLarge(); // more than it declared
        }
        bytes = new Uint8Array(0); // dropped before the drain, which may be long
        budget?.give(taken);
        taken = 0;
        await drain(reader, drainBytes);
        throw tooLarge();
      }
      if (needed > bytes.byteLength) {
        const size = Math.min(cap, Math.max(needed, 2 * bytes.byteLength, FIRST_BUFFER_BYTES));
        if (budget && !budget.take(size - taken)) {
          bytes = new Uint8Array(0);
          budget.give(taken);
          taken = 0;
          await drain(reader, drainBytes);
          throw new BodyReadError('busy', 'the server is receiving too many request bodies at once; retry shortly');
        }
        taken = size;
        const grown = new Uint8Array(size);
        grown.set(bytes.subarray(0, at));
        bytes = grown;
      }
      bytes.set(value, at);
      at = needed;
    }
  } finally {
    budget?.give(taken);
  }
  return at === bytes.byteLength ? bytes : bytes.slice(0, at);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
// Pieces after the first: a BOM there is content, not a marker to drop.
const utf8Rest = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The bytes as text, refusing anything that is not UTF-8 with a {@link BodyReadError}.
 *
 * @example
 * const text = decodeBody(await readBody(request, { maxBytes }))
 */
export function decodeBody(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new BodyReadError('not_utf8', 'the body is not valid UTF-8');
  }
}

/**
 * {@link decodeBody} in pieces of about `piece` bytes, cut where a character begins, awaiting
 * `pause()` between them, so decoding a large body never holds the thread for long. The same
 * text and the same refusal as {@link decodeBody}.
 *
 * @example
 * const text = await decodeBodyInSteps(bytes, () => new Promise((done) => setTimeout(done, 0)))
 */
export async function decodeBodyInSteps(
  bytes: Uint8Array,
  pause: () => Promise<void>,
  piece = 256 * 1024,
): Promise<string> {
  if (bytes.byteLength <= piece) return decodeBody(bytes);
  const parts: string[] = [];
  try {
    for (let at = 0; at < bytes.byteLength; ) {
      let end = Math.min(bytes.byteLength, at + piece);
      // On to a character's first byte (a UTF-8 continuation byte is 10xxxxxx; at most 3 follow
      // one; past that the text is not UTF-8 and the next piece's decode says so).
      for (let on = 0; on < 3 && end < bytes.byteLength && ((bytes[end] as number) & 0xc0) === 0x80; on++) end++;
      if (at > 0) await pause();
      parts.push((at === 0 ? utf8 : utf8Rest).decode(bytes.subarray(at, end)));
      at = end;
    }
  } catch {
    throw new BodyReadError('not_utf8', 'the body is not valid UTF-8');
  }
  await pause();
  return parts.join('');
}

/** Read and drop up to `limit` more bytes, then cancel whatever is left; never throws. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number): Promise<void> {
  try {
    for (let left = limit; left > 0; ) {
      const { done, value } = await reader.read();
      if (done) return;
      left -= value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away mid-drain: nothing left to read or to answer.
  }
}
