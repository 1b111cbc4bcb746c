/**
 * The proxy's request body as text: the API's one body reader (`../read-body.ts`: a declared
 * `Content-Length` over the limit refused before reading, a chunked upload counted as it
 * streams and drained when it goes over, strict UTF-8), its refusals in the proxy's error type.
 * A large body is read as it streams and decoded a piece at a time, with a turn of the event
 * loop between pieces (see `large-body-turn.ts`).
 */
import { BodyReadError, decodeBodyInSteps, readBody } from '../read-body.js';
import type { UploadBudget } from '../upload-budget.js';
import { UPLOAD_RETRY_AFTER_SECONDS } from '../upload-budget.js';
import { nextTurn } from './large-body-turn.js';
import { ProxyRequestError } from './request-error.js';

/** A request body: its bytes, and the text they decode to. */
export interface BodyText {
  readonly text: string;
  readonly bytes: Uint8Array;
}

/**
 * Read `request`'s body as UTF-8 text, keeping its bytes (a large ASCII body is forwarded from
 * them). Throws {@link ProxyRequestError}: 413 over `limit` bytes, 400 when empty or not UTF-8,
 * 503 with `Retry-After` when the unfinished uploads already hold all of `budget`.
 *
 * @example
 * const { text } = await readBodyText(c.req.raw, 8 * 1024 * 1024, uploadBudget())
 */
export async function readBodyText(request: Request, limit: number, budget?: UploadBudget): Promise<BodyText> {
  try {
    const bytes = await readBody(request, { maxBytes: limit, budget });
    return { text: await decodeBodyInSteps(bytes, nextTurn), bytes }; // a large body a piece at a time
  } catch (error) {
    if (!(error instanceof BodyReadError)) throw error;
    if (error.reason === 'busy')
      throw new ProxyRequestError(503, error.message, undefined, {
        code: 'server_busy',
        headers: { 'retry-after': String(UPLOAD_RETRY_AFTER_SECONDS) },
      });
    if (error.reason === 'too_large')
      throw new ProxyRequestError(413, `the request body exceeds the proxy's limit of ${Math.floor(limit / 1024)} KiB`);
    throw new ProxyRequestError(
      400,
      error.reason === 'empty' ? 'a JSON request body is required' : 'the request body is not valid UTF-8',
    );
  }
}
