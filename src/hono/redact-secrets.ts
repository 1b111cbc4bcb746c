/**
 * Scrubbing the server's secrets (model keys, the bearer token) out of text a client will read:
 * a run's streamed events, an upstream error the proxy relays. Upstreams quote a rejected key
 * whole, or masked as its start and end around stars (`sk-proj-****…abcd`); both go.
 */

/** What a secret, or a masked echo of one, becomes. */
export const REDACTED = '[redacted]';

/** Secrets shorter than this are too short to scrub without scrubbing ordinary words. */
const MIN_SECRET_CHARS = 4;

/** A masked echo of a secret longer than this is scrubbed (a shorter one gives little away). */
const MIN_MASKED_SECRET_CHARS = 8;

/** Visible characters of a key, a run of masking (`*`, `…`, `..`), visible characters again. */
const MASKED = /([A-Za-z0-9_-]*)((?:\*|…|\.{2,})+)([A-Za-z0-9_-]*)/g;

/**
 * `text` with every occurrence of each secret, and every masked echo of one (a run of `*`, `…`
 * or dots between a start and an end of the secret, at least four characters of it shown), as
 * {@link REDACTED}.
 *
 * @example
 * redactSecrets('Incorrect API key provided: sk-proj-********wxyz', ['sk-proj-abc123wxyz']) // 'Incorrect API key provided: [redacted]'
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const scrubbed = secrets.filter((secret) => secret.length >= MIN_SECRET_CHARS);
  let out = text;
  for (const secret of scrubbed) out = out.split(secret).join(REDACTED);
  const masked = scrubbed.filter((secret) => secret.length >= MIN_MASKED_SECRET_CHARS);
  if (masked.length === 0 || !/\*|…|\.\./.test(out)) return out;
  return out.replace(MASKED, (match, head: string, _mask: string, tail: string) =>
    head.length + tail.length >= 4 &&
    masked.some(
      (secret) => secret.startsWith(head) && secret.endsWith(tail) && head.length + tail.length < secret.length,
    )
      ? REDACTED
      : match,
  );
}
