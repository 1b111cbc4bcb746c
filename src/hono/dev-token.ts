/** Dev tokens for local entries that generate one when `LOOPCTL_TOKEN` is unset. */

/**
 * A random URL-safe token (32 bytes of entropy), valid in an `Authorization: Bearer` header.
 *
 * @example
 * const token = generateToken() // 'q3J…' (43 characters)
 */
export function generateToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
