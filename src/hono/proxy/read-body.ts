/**
 * A request body as text, under a size limit: a declared `Content-Length` over the limit is
 * refused before reading, one within it is read in one go, and the bytes of a body without one
 * (a chunked upload) are counted as they stream.
 */
import { ProxyRequestError } from './request-error.js';
import { concatBytes } from '../../concat-bytes.js';

/**
 * Read `request`'s body as UTF-8 text. Throws {@link ProxyRequestError}: 413 over `limit`
 * bytes, 400 when empty or not UTF-8.
 *
 * @example
 * const text = await readBodyText(c.req.raw, 8 * 1024 * 1024)
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get('content-length');
  const length = declared === null ? Number.NaN : Number(declared);
  if (length > limit) throw tooLarge(limit);
  // A declared length bounds the body (HTTP framing ends it there), so it can be read in one
  // go: the runtime's own fast path (on Node, straight from the socket, no web stream).
  if (Number.isSafeInteger(length) && length >= 0) {
    if (length === 0) throw new ProxyRequestError(400, 'a JSON request body is required');
    return decodeUtf8(new Uint8Array(await request.arrayBuffer()));
  }
  if (!request.body) throw new ProxyRequestError(400, 'a JSON request body is required');
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (total === 0) throw new ProxyRequestError(400, 'a JSON request body is required');
  return decodeUtf8(chunks.length === 1 ? (chunks[0] as Uint8Array) : concatBytes(chunks, total));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ProxyRequestError(400, 'the request body is not valid UTF-8');
  }
}

function tooLarge(limit: number): ProxyRequestError {
  return new ProxyRequestError(413, `the request body exceeds the proxy's limit of ${Math.floor(limit / 1024)} KiB`);
}
