/**
 * The middleware in front of every JSON route: a well-formed `Content-Length`, a JSON media
 * type, the body read under its size limit (declared size refused from the header alone,
 * streamed size counted, an oversized upload drained before the refusal) by the one body reader
 * the proxy uses too (`read-body.ts`), and strict UTF-8. The parsed body then comes from Hono's
 * `validator('json', …)` in the route, which reads the bytes kept here.
 */
import type { MiddlewareHandler } from 'hono';
import { mergeOptions } from '../options.js';
import { ApiError, errorResponse } from './api-error.js';
import { isJsonMediaType } from './json-media-type.js';
import { BodyReadError, decodeBody, readBody } from './read-body.js';
import type { UploadBudget } from './upload-budget.js';
import { UPLOAD_RETRY_AFTER_SECONDS } from './upload-budget.js';

/** Options for {@link jsonBody}. */
export interface JsonBodyOptions {
  /** Largest accepted body in bytes. */
  maxBytes: number;
  /**
   * After refusing an oversized streamed body, read (and drop) up to this many more bytes
   * before answering, so proxies that forward the upload (wrangler dev's) see it consumed.
   * Default 16 × `maxBytes`; beyond that the upload is cancelled.
   */
  drainBytes?: number;
  /** What all unfinished uploads may hold at once (see `upload-budget.ts`). Default no shared cap. */
  budget?: UploadBudget;
}

/**
 * Middleware that refuses, as JSON errors: a malformed `Content-Length` (400
 * `invalid_content_length`), a non-JSON `Content-Type` (415), a body over `maxBytes` (413,
 * from the declared length before reading, or while streaming a chunked body), and a body that
 * is empty or not UTF-8 (400 `invalid_json`), and one that would pass the shared upload
 * `budget` (503 `server_busy`, with `Retry-After`).
 *
 * @example
 * app.post('/v1/select', ...jsonBody({ maxBytes: 256 * 1024 }), validator('json', parse), handler)
 */
export function jsonBody(options: JsonBodyOptions): MiddlewareHandler[] {
  const read = mergeOptions({ maxBytes: options.maxBytes }, { drainBytes: options.drainBytes, budget: options.budget });
  const checkHeaders: MiddlewareHandler = async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared !== undefined && !/^\s*\d+\s*$/.test(declared)) {
      throw new ApiError(400, 'invalid_content_length', 'the Content-Length header must be a number of bytes');
    }
    if (!isJsonMediaType(c.req.header('content-type'))) {
      throw new ApiError(
        415,
        'unsupported_media_type',
        'the body must be JSON (Content-Type: application/json or application/…+json)',
      );
    }
    await next();
  };

  const readUtf8: MiddlewareHandler = async (c, next) => {
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = await readBody(c.req.raw, read);
      decodeBody(bytes);
    } catch (error) {
      if (!(error instanceof BodyReadError)) throw error;
      if (error.reason === 'busy')
        return errorResponse(new ApiError(503, 'server_busy', error.message), {
          'retry-after': String(UPLOAD_RETRY_AFTER_SECONDS),
        });
      if (error.reason === 'too_large') throw new ApiError(413, 'body_too_large', error.message);
      throw new ApiError(400, 'invalid_json', error.reason === 'empty' ? 'a JSON body is required' : error.message);
    }
    // The raw stream is spent: the route's validator('json') reads these bytes instead.
    c.req.raw = new Request(c.req.raw, { body: bytes });
    await next();
  };

  return [checkHeaders, readUtf8];
}
