/** Why the proxy refused a request before forwarding it. */

/**
 * A request the proxy refuses: answered in the provider's own error shape.
 *
 * @example
 * throw new ProxyRequestError(400, 'tools[3] has no name', 'tools[3].function.name')
 */
export class ProxyRequestError extends Error {
  override name = 'ProxyRequestError';
  readonly status: 400 | 413;
  /** The offending field (OpenAI's `param`), e.g. `tools[3]`. */
  readonly param: string | undefined;

  constructor(status: 400 | 413, message: string, param?: string) {
    super(message);
    this.status = status;
    this.param = param;
  }
}
