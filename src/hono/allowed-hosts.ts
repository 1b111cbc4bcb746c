/**
 * The `Host` names a server answers to. A server on loopback is reachable from every web page
 * the machine's browser opens: through DNS rebinding a page's own name comes to resolve to
 * 127.0.0.1, and the browser then lets the page read the answers, as same-origin. Such a request
 * still names the page's host in `Host`, so a loopback server that answers only loopback names
 * (`127.0.0.1`, `localhost`, `[::1]`, any port) is out of the page's reach.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError, errorResponse } from './api-error.js';
import { PROTOCOLS } from './proxy/protocols/index.js';
import { providerError } from './proxy/provider-errors.js';
import type { ProxyProtocol } from './proxy/proxy-protocol.js';

/**
 * The names a loopback bind answers to by default, as they appear in `Host` (an IPv6 address in
 * brackets).
 */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Whether a listen address is loopback only: `127.0.0.0/8`, `::1` or `localhost`.
 *
 * @example
 * isLoopbackAddress('127.0.0.1') // true
 * isLoopbackAddress('0.0.0.0') // false
 */
export function isLoopbackAddress(address: string): boolean {
  const name = address
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || name === '::1' || /^127(?:\.\d{1,3}){3}$/.test(name);
}

/**
 * Whether the `Host` value `host` (any port) is one of `allowed` (names as {@link LOOPBACK_HOSTS}
 * writes them, lower case; `*` allows any).
 *
 * @example
 * hostAllowed('localhost:8787', LOOPBACK_HOSTS) // true
 * hostAllowed('rebound.example', LOOPBACK_HOSTS) // false
 */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  if (allowed.includes('*')) return true;
  const value = host.trim().toLowerCase();
  const name = value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : value.replace(/:\d*$/, '');
  return name !== '' && allowed.includes(name);
}

/**
 * Middleware answering 403 to a request whose `Host` is not in `allowed`: in the provider's error
 * shape on the proxy's routes (so a client library raises its usual error), else the API's.
 *
 * @example
 * app.use('*', allowedHostsGuard(LOOPBACK_HOSTS))
 */
export function allowedHostsGuard(allowed: readonly string[]): MiddlewareHandler {
  const names = allowed.map((name) => name.toLowerCase());
  const message = `the Host header must name this server (${names.join(', ')}, any port); ALLOWED_HOSTS (the allowedHosts option) lists the names it answers to`;
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (hostAllowed(host, names)) return next();
    const protocol = proxyProtocol(new URL(c.req.url).pathname, c.req.raw.headers);
    return protocol
      ? providerError(protocol, 403, message, { code: 'host_not_allowed' })
      : errorResponse(new ApiError(403, 'host_not_allowed', message));
  };
}

/** The proxy protocol a path speaks, if it is one of the proxy's routes (the model list: the one the headers claim). */
function proxyProtocol(path: string, headers: Headers): ProxyProtocol | undefined {
  if (path === '/v1/models')
    return (
      PROTOCOLS.find((protocol) => protocol.models?.claims?.(headers) === true) ??
      PROTOCOLS.find((protocol) => protocol.models !== undefined)
    );
  return PROTOCOLS.find((protocol) => protocol.route === path);
}
