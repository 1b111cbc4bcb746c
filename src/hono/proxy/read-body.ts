/**
 * A request body as text, under a size limit: the declared `Content-Length` is refused
 * early, and the bytes actually streamed are counted (a chunked upload declares nothing).
 */
import { ProxyRequestError } from './request-error.js';

/**
 * Read `request`'s body as UTF-8 text. Throws {@link ProxyRequestError}: 413 over `limit`
 * bytes, 400 when empty or not UTF-8.
 *
 * @example
 * const text = await readBodyText(c.req.raw, 8 * 1024 * 1024)
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
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
  const bytes = chunks.length === 1 ? (chunks[0] as Uint8Array) : concat(chunks, total);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ProxyRequestError(400, 'the request body is not valid UTF-8');
  }
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

function tooLarge(limit: number): ProxyRequestError {
  return new ProxyRequestError(413, `the request body exceeds the proxy's limit of ${Math.floor(limit / 1024)} KiB`);
}
