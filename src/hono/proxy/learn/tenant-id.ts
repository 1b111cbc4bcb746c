/**
 * Who a request's learning belongs to. Token mode: the presented proxy token (every holder of
 * one token is one tenant; give several teams their own tokens, through a `TokenVerifier` that
 * accepts each, and they learn apart). Pass-through mode: the client's provider key. Either way
 * the tenant is a keyed SHA-256 of the credential, never the credential: a stored id or a file
 * name reveals nothing, and with a server secret as the key it cannot even be checked against
 * a guessed key.
 */
import { digestHex } from '../../../digest.js';
import type { ProxyAuthMode } from '../proxy-auth.js';

const DOMAIN = 'loopctl/learn-tenant/v1';

/**
 * The credential a request presents: its bearer token, else its `x-api-key`.
 *
 * @example
 * credentialOf(new Headers({ authorization: 'Bearer sk-a' })) // 'sk-a'
 */
export function credentialOf(headers: Headers): string {
  const bearer = headers.get('authorization')?.match(/^\s*Bearer\s+(.+?)\s*$/i)?.[1];
  return bearer ?? headers.get('x-api-key')?.trim() ?? '';
}

/**
 * The tenant id of a request (64 hex characters), keyed with `secret` (the server's own).
 *
 * @example
 * await tenantOf(request.headers, 'passthrough', env.PROXY_LEARN_SECRET ?? '') // 'c0ffee…'
 */
export async function tenantOf(headers: Headers, auth: ProxyAuthMode, secret: string): Promise<string> {
  return digestHex([DOMAIN, auth, secret, credentialOf(headers)]);
}

/**
 * The registry a request's learning belongs to: the digest of its selectable tools' names, in
 * order-free form, so a reordered list (or an edited description) keeps what was learned.
 *
 * @example
 * await registryOf(['b', 'a']) === await registryOf(['a', 'b']) // true
 */
export async function registryOf(names: readonly string[]): Promise<string> {
  return digestHex(['loopctl/learn-registry/v1', ...[...names].sort()]);
}
