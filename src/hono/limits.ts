/**
 * The bounds every door of the HTTP API enforces (the JSON API's bodies and the proxy's
 * headers and variables alike), so a request cannot ask for more work than these.
 *
 * @example
 * if (k > LIMITS.maxK) throw new RangeError(`k must be from ${LIMITS.minK} to ${LIMITS.maxK}`)
 */
export const LIMITS = {
  minK: 1,
  maxK: 64,
  minTurns: 1,
  maxTurns: 20,
  maxMessages: 200,
  maxPromptChars: 32_000,
} as const;
