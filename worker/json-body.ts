/**
 * Reading a JSON request body under a size limit. The declared `Content-Length` is checked
 * first (cheap refusal), then the bytes actually streamed are counted, because a chunked
 * body declares nothing and a client may send more than it declared.
 */
import { ApiError } from './api-error.js';

/**
 * Read and parse `request`'s body, refusing more than `limit` bytes with 413, a non-JSON
 * content type with 415, and anything that is not UTF-8 JSON with 400.
 *
 * @example
 * const body = await readJsonBody(c.req.raw, 256 * 1024)
 */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const type = request.headers.get('content-type');
  if (type !== null && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type.trim())) {
    throw new ApiError(415, 'unsupported_media_type', 'the body must be JSON (Content-Type: application/json)');
  }
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body) throw new ApiError(400, 'invalid_json', 'a JSON body is required');

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      // Stop reading: the rest of an oversized upload is never buffered.
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  if (total === 0) throw new ApiError(400, 'invalid_json', 'a JSON body is required');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError(400, 'invalid_json', 'the body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'the body is not valid JSON');
  }
}

function tooLarge(limit: number): ApiError {
  return new ApiError(413, 'body_too_large', `the body exceeds ${Math.floor(limit / 1024)} KiB`);
}
