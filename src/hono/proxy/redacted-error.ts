/**
 * An upstream's error answer with the server's keys scrubbed out. Upstreams quote the key they
 * rejected (OpenAI: `Incorrect API key provided: sk-proj-****abcd`); relayed as is, a token-mode
 * client would read the server's key, or enough of it to recognise it. Only error answers are
 * read and rewritten: a success streams through untouched.
 */
import { concatBytes } from '../../concat-bytes.js';
import { redactSecrets } from '../redact-secrets.js';
import { WHOLE_BODY_MAX_BYTES } from './response-body.js';

/**
 * `upstream` as is when it succeeded or there is no secret to scrub; else the same status and
 * headers with a body of its first {@link WHOLE_BODY_MAX_BYTES} (an error is a short document; a
 * longer one is cut there) with every secret, whole or masked, redacted.
 *
 * @example
 * const answer = await redactedError(await fetch(url, init), [openaiKey, anthropicKey])
 */
export async function redactedError(upstream: Response, secrets: readonly string[]): Promise<Response> {
  if (upstream.status < 400 || secrets.length === 0 || !upstream.body) return upstream;
  const reader = upstream.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < WHOLE_BODY_MAX_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  if (size >= WHOLE_BODY_MAX_BYTES) await reader.cancel().catch(() => undefined);
  const bytes = concatBytes(chunks, size).subarray(0, WHOLE_BODY_MAX_BYTES);
  const text = redactSecrets(new TextDecoder().decode(bytes), secrets);
  const headers = new Headers(upstream.headers);
  // The body is new: its length and encoding are no longer the upstream's.
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(text, { status: upstream.status, statusText: upstream.statusText, headers });
}
