/**
 * The proxy's upstream did not answer at all (connection refused, DNS, reset before a response).
 * With a local model server that is simply not started yet this is the normal first state, not
 * an internal error: the app's default `onError` logs it as one plain line saying what to start,
 * where an internal error gets its stack.
 */
import { errorMessage } from '../../describe-error.js';
import type { ProxyUpstream, UpstreamName } from './proxy-protocol.js';

/**
 * No upstream answered at `url`. The message names the URL and what to do (the upstream's
 * `unreachableHint`).
 *
 * @example
 * onError: (error) => error instanceof UpstreamUnreachableError ? console.info(error.message) : console.error(error)
 */
export class UpstreamUnreachableError extends Error {
  override readonly name = 'UpstreamUnreachableError';
  /** Which upstream did not answer (`openai` or `anthropic`). */
  readonly protocol: UpstreamName;
  constructor(
    upstream: Pick<ProxyUpstream, 'name' | 'unreachableHint'>,
    readonly url: string,
    cause: unknown,
  ) {
    const why = errorMessage(cause);
    super(
      `proxy: no ${upstream.name} upstream answered at ${url} (${why}); start the model server there (e.g. ollama serve), or point ${upstream.unreachableHint} at one`,
      { cause },
    );
    this.protocol = upstream.name;
  }
}
