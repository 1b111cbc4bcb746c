import { errorMessage } from '../../describe-error.js';
/**
 * The proxy's upstream did not answer at all (connection refused, DNS, reset before a response).
 * With a local model server that is simply not started yet this is the normal first state, not
 * an internal error: the app's default `onError` logs it as one plain line saying what to start,
 * where an internal error gets its stack.
 */

/**
 * No upstream answered at `url`. The message names the URL and what to do.
 *
 * @example
 * onError: (error) => error instanceof UpstreamUnreachableError ? console.info(error.message) : console.error(error)
 */
export class UpstreamUnreachableError extends Error {
  override readonly name = 'UpstreamUnreachableError';
  constructor(
    readonly protocol: 'openai' | 'anthropic',
    readonly url: string,
    cause: unknown,
  ) {
    const variable = protocol === 'openai' ? 'MODEL_BASE_URL or PROXY_OPENAI_BASE_URL' : 'PROXY_ANTHROPIC_BASE_URL';
    const why = errorMessage(cause);
    super(
      `proxy: no ${protocol} upstream answered at ${url} (${why}); start the model server there (e.g. ollama serve), or point ${variable} at one`,
      {
        cause,
      },
    );
  }
}
