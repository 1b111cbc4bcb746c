/**
 * Assertions for the framework-neutral suites (`test/worker/suite.ts`, `test/proxy/proxy-suite.ts`),
 * which run under vitest, the workers pool and `Deno.test` alike, so they cannot import any
 * one framework's `expect`. Web APIs only.
 */

/** A failed check: its message says what was expected and what came back. */
export class CheckFailure extends Error {
  override name = 'CheckFailure';
}

/** Fails the check with `message` unless `condition` holds. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

/** Fails the check unless `actual === expected`, naming `what` and both values. */
export function equal<T>(actual: T, expected: T, what: string): void {
  if (actual !== expected)
    throw new CheckFailure(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}
