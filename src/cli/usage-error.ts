/**
 * A usage mistake (unknown command or option, missing argument): printed without a stack, exit code 2.
 *
 * @example
 * throw new UsageError('--tools FILE is required')
 */
export class UsageError extends Error {
  override name = 'UsageError';
}
