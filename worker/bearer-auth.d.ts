/**
 * Bearer-token checking in constant time with web APIs only: both the expected and the
 * presented token are HMAC'd under a random per-process key and the digests are compared
 * with an XOR loop, so neither the token's content nor its length leaks through timing.
 */
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
export declare function tokenCheck(expected: string): TokenCheck;
/**
 * The token of an `Authorization: Bearer <token>` header, or undefined.
 *
 * @example
 * bearerToken(new Request('http://x', { headers: { authorization: 'Bearer abc' } })) // 'abc'
 */
export declare function bearerToken(request: Request): string | undefined;
/**
 * A random URL-safe token (32 bytes of entropy), for dev entries that generate one.
 *
 * @example
 * const token = generateToken() // 'q3J…' (43 characters)
 */
export declare function generateToken(): string;
