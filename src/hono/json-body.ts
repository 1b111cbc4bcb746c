/**
 * The middleware in front of every JSON route: a well-formed `Content-Length`, a JSON media
 * type, Hono's `bodyLimit` (declared size refused from the header alone, streamed size counted),
 * and strict UTF-8. The parsed body then comes from Hono's `validator('json', …)` in the route.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './api-error.js';
import { mergeOptions } from '../options.js';

/** `application/json` or any `application/…+json` type; parameters (`; charset=utf-8`) allowed. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json$/i;

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
}

/**
 * Middleware that refuses, as JSON errors: a malformed `Content-Length` (400
 * `invalid_content_length`), a non-JSON `Content-Type` (415), a body over `maxBytes` (413,
 * from the declared length before reading, or while streaming a chunked body), and a body that
 * is not UTF-8 (400 `invalid_json`).
 *
 * @example
 * app.post('/v1/select', ...jsonBody({ maxBytes: 256 * 1024 }), validator('json', parse), handler)
 */
export function jsonBody(options: JsonBodyOptions): MiddlewareHandler[] {
  const { maxBytes, drainBytes } = mergeOptions({ drainBytes: 16 * options.maxBytes }, options);
  const tooLarge = (): ApiError => new ApiError(413, 'body_too_large', `the body exceeds ${Math.floor(maxBytes / 1024)} KiB`);
  const drains = new WeakMap<Request, () => Promise<void>>();

  const checkHeaders: MiddlewareHandler = async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared !== undefined && !/^\s*\d+\s*$/.test(declared)) {
      throw new ApiError(400, 'invalid_content_length', 'the Content-Length header must be a number of bytes');
    }
    const type = c.req.header('content-type');
    const mediaType = type?.split(';')[0]?.trim() ?? '';
    if (!JSON_MEDIA_TYPE.test(mediaType)) {
      throw new ApiError(415, 'unsupported_media_type', 'the body must be JSON (Content-Type: application/json or application/…+json)');
    }
    const chunked = declared === undefined || c.req.header('transfer-encoding') !== undefined;
    // From the header alone, before reading: the client may be withholding the body.
    if (!chunked && Number(declared) > maxBytes) throw tooLarge();
    const body = c.req.raw.body;
    if (body && chunked) {
      // bodyLimit reads through this stream; the reader underneath stays ours, so an oversized
      // upload can be drained (up to drainBytes) after bodyLimit stops reading.
      const source = body.getReader();
      const counted = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await source.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: (reason) => source.cancel(reason),
      });
      const request = new Request(c.req.raw, { body: counted, duplex: 'half' } as RequestInit);
      drains.set(request, async () => {
        let left = drainBytes;
        while (left > 0) {
          const { done, value } = await source.read();
          if (done) return;
          left -= value.byteLength;
        }
        await source.cancel().catch(() => undefined);
      });
      c.req.raw = request;
    }
    await next();
  };

  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: async (c) => {
      await drains
        .get(c.req.raw)?.()
        .catch(() => undefined);
      throw tooLarge();
    },
  });

  const checkUtf8: MiddlewareHandler = async (c, next) => {
    const bytes = await c.req.arrayBuffer();
    if (bytes.byteLength === 0) throw new ApiError(400, 'invalid_json', 'a JSON body is required');
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new ApiError(400, 'invalid_json', 'the body is not valid UTF-8');
    }
    await next();
  };

  return [checkHeaders, limit, checkUtf8];
}
