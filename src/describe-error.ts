/**
 * One line for any thrown value: the message, with its cause's message when it adds something.
 * Used wherever a failure becomes a warning, an event or an error result.
 *
 * @example
 * errorMessage(new Error('fetch failed', { cause: new Error('ECONNREFUSED') }))
 * // 'fetch failed (ECONNREFUSED)'
 */
export function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? cause.message : undefined;
  return detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message;
}

/**
 * A thrown value as an event's `{ code, message }`: an HTTP status becomes `http_<status>`,
 * otherwise the error's name.
 *
 * @example
 * describeError(new TypeError('bad')) // { code: 'TypeError', message: 'bad' }
 */
export function describeError(error: unknown): { code: string; message: string } {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    return {
      code: typeof status === 'number' ? `http_${status}` : error.name || 'error',
      message: errorMessage(error),
    };
  }
  return { code: 'error', message: String(error) };
}
