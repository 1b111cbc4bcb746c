/**
 * Bearer-token checking in constant time with web APIs only: both the expected and the
 * presented token are HMAC'd under a random per-process key and the digests are compared
 * with an XOR loop, so neither the token's content nor its length leaks through timing.
 */

const encoder = new TextEncoder();

/** Checks presented tokens against one expected token. */
export interface TokenCheck {
  /** True when `presented` equals the expected token. */
  verify(presented: string): Promise<boolean>;
}

/**
 * Build a constant-time checker for `expected`.
 *
 * @example
 * const check = tokenCheck(env.LOOPCTL_TOKEN)
 * if (!(await check.verify(bearerToken(request) ?? ''))) return unauthorized()
 */
export function tokenCheck(expected: string): TokenCheck {
  // Lazily: crypto.subtle work cannot run at module scope in Workers (global scope limits).
  let state: Promise<{ key: CryptoKey; digest: Uint8Array }> | undefined;
  const init = async (): Promise<{ key: CryptoKey; digest: Uint8Array }> => {
    const key = await crypto.subtle.importKey(
      'raw',
      crypto.getRandomValues(new Uint8Array(32)),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    return { key, digest: new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(expected))) };
  };
  return {
    async verify(presented) {
      state ??= init();
      const { key, digest } = await state;
      const given = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(presented)));
      let diff = given.length ^ digest.length;
      for (let i = 0; i < digest.length; i++) diff |= (given[i] ?? 0) ^ (digest[i] as number);
      return diff === 0;
    },
  };
}

/**
 * The token of an `Authorization: Bearer <token>` header, or undefined.
 *
 * @example
 * bearerToken(new Request('http://x', { headers: { authorization: 'Bearer abc' } })) // 'abc'
 */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  const match = header ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  return match?.[1];
}

/**
 * A random URL-safe token (32 bytes of entropy), for dev entries that generate one.
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
