/** Why the proxy refused a request before forwarding it. */

/**
 * A request the proxy refuses: answered in the provider's own error shape.
 *
 * @example
 * throw new ProxyRequestError(400, 'tools[3] has no name', 'tools[3].function.name')
 */
export class ProxyRequestError extends Error {
  override name = 'ProxyRequestError';
  readonly status: 400 | 413 | 503;
  /** The offending field (OpenAI's `param`), e.g. `tools[3]`. */
  readonly param: string | undefined;
  /** OpenAI's `code` where the status's usual one would mislead, and headers to answer with. */
  readonly extra: { readonly code?: string; readonly headers?: Record<string, string> };

  constructor(
    status: 400 | 413 | 503,
    message: string,
    param?: string,
    extra: { readonly code?: string; readonly headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = status;
    this.param = param;
    this.extra = extra;
  }
}
