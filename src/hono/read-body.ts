/**
 * The one request-body reader of the HTTP API and the proxy: a size limit, a drain of oversized
 * uploads, and strict UTF-8. Each caller words the refusal in its own error shape.
 */
import { concatBytes } from '../concat-bytes.js';

/** Why a body was refused: over the limit, empty, or not UTF-8. */
export class BodyReadError extends Error {
  override readonly name = 'BodyReadError';
  constructor(
    readonly reason: 'too_large' | 'empty' | 'not_utf8',
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
   * A body declaring at least this many bytes is read chunk by chunk into one buffer of that
   * size, rather than by `arrayBuffer()`, which on Node joins the chunks and copies them again
   * in one go (an 8 MiB body: about 15 ms in which nothing else runs). Default 1 MiB.
   */
  readonly streamFrom?: number;
}

/**
 * Read `request`'s body, at most `maxBytes` of it. A declared `Content-Length` over the limit is
 * refused before reading (the client may be withholding the body); one within it is read in one
 * go (HTTP framing ends the body there; on Node straight from the socket); a body without one
 * (a chunked upload) is counted as it streams, and once over the limit drained (see
 * {@link ReadBodyOptions.drainBytes}) before the refusal. The stream has one reader, this one,
 * so the drain never races another read. Throws {@link BodyReadError}.
 *
 * @example
 * const bytes = await readBody(c.req.raw, { maxBytes: 256 * 1024 })
 */
export async function readBody(request: Request, options: ReadBodyOptions): Promise<Uint8Array<ArrayBuffer>> {
  const { maxBytes } = options;
  const streamFrom = options.streamFrom ?? STREAM_FROM_BYTES;
  const drainBytes = options.drainBytes ?? 16 * maxBytes;
  const tooLarge = () => new BodyReadError('too_large', `the body exceeds ${Math.floor(maxBytes / 1024)} KiB`);
  const declared = request.headers.get('content-length');
  const length = declared === null || declared.trim() === '' ? Number.NaN : Number(declared);
  if (length > maxBytes) throw tooLarge();
  let bytes: Uint8Array<ArrayBuffer>;
  const framed = Number.isSafeInteger(length) && length >= 0 && !request.headers.has('transfer-encoding');
  if (framed && request.body && length >= streamFrom) {
    bytes = await readDeclared(request.body.getReader(), length, tooLarge);
  } else if (framed) {
    bytes = length === 0 ? new Uint8Array(0) : new Uint8Array(await request.arrayBuffer());
  } else if (!request.body) {
    bytes = new Uint8Array(0);
  } else {
    const reader = request.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await drain(reader, drainBytes);
        throw tooLarge();
      }
      chunks.push(value);
    }
    bytes = concatBytes(chunks, total);
  }
  if (bytes.byteLength > maxBytes) throw tooLarge(); // a runtime that let more through than it declared
  if (bytes.byteLength === 0) throw new BodyReadError('empty', 'the body is empty');
  return bytes;
}

const STREAM_FROM_BYTES = 1024 * 1024;

// A body with a Content-Length, read as it streams into one buffer of that size.
async function readDeclared(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  length: number,
  tooLarge: () => BodyReadError,
): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = new Uint8Array(length);
  let at = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    if (at + value.byteLength > length) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(); // more than it declared
    }
    bytes.set(value, at);
    at += value.byteLength;
  }
  return at === length ? bytes : bytes.slice(0, at);
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
