/**
 * The one error shape every API response uses: `{ "error": { "code", "message" } }` (plus
 * `field` for bad input). Messages are written for clients; they never carry a secret or a
 * stack trace, so internal failures are logged and answered with a generic message.
 */

/** HTTP statuses the API answers errors with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 413 | 415 | 500 | 503;

/** The JSON body of an error response. */
export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

/**
 * An error that becomes a JSON response with its status. Throw it from a handler; the app's
 * error handler renders it.
 *
 * @example
 * throw new ApiError(400, 'invalid_field', '"k" must be an integer from 1 to 64', 'k')
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: ErrorStatus;
  readonly code: string;
  readonly field: string | undefined;

  constructor(status: ErrorStatus, code: string, message: string, field?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }

  /** The response body. */
  toBody(): ErrorBody {
    return {
      error: { code: this.code, message: this.message, ...(this.field !== undefined ? { field: this.field } : {}) },
    };
  }
}

/**
 * A JSON error response, for places that build a `Response` themselves.
 *
 * @example
 * return errorResponse(new ApiError(503, 'not_configured', 'LOOPCTL_TOKEN is not set'))
 */
export function errorResponse(error: ApiError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.toBody()), {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}
