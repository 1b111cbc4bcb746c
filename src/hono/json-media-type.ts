/**
 * The one rule for "this body is declared JSON", shared by the API's JSON routes and the proxy.
 * It is also what keeps web pages out: a page can send `text/plain`, a form, or no type at all
 * without a CORS preflight, but never `application/json`.
 */

/** `application/json` or any `application/…+json` type. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json$/i;

/**
 * Whether a `Content-Type` header declares JSON: `application/json` or `application/…+json`,
 * parameters (`; charset=utf-8`) allowed. A missing header is not JSON.
 *
 * @example
 * isJsonMediaType('application/json; charset=utf-8') // true
 * isJsonMediaType('text/plain') // false
 */
export function isJsonMediaType(contentType: string | null | undefined): boolean {
  return JSON_MEDIA_TYPE.test(contentType?.split(';')[0]?.trim() ?? '');
}
