/**
 * `GET /v1/learned` and `DELETE /v1/learned`: what the proxy has learned for the caller's own
 * tenant, and forgetting it. Authenticated as the proxy's routes are (token mode: the proxy
 * token; pass-through: the caller's provider key), and scoped by construction: the tenant is
 * the digest of the credential presented, so no request can name another tenant.
 */
import { Hono } from 'hono';
import { authorize } from '../proxy-auth.js';
import type { ProxyConfig } from '../proxy-settings.js';
import type { ProxyLearning } from './proxy-learning.js';
import { credentialOf, tenantOf } from './tenant-id.js';

/**
 * The learned-traffic routes of one proxy (mounted only when learning is on).
 *
 * @example
 * if (config.learning) app.route('/', learnedRoutes(config, config.learning))
 */
export function learnedRoutes(config: ProxyConfig, learning: ProxyLearning): Hono {
  const app = new Hono();
  const tenantOfRequest = async (raw: Request): Promise<string | Response> => {
    const outcome = await authorize(raw, config.auth, config.token);
    if (outcome === 'not_configured')
      return failure(503, 'not_configured', 'the proxy token (LOOPCTL_TOKEN) is not set on this server');
    if (outcome === 'unauthorized' || credentialOf(raw.headers) === '')
      return failure(401, 'unauthorized', 'a credential is required (Authorization: Bearer <key> or x-api-key: <key>)');
    return tenantOf(raw.headers, config.auth, learning.secret);
  };
  app.get('/v1/learned', async (c) => {
    const tenant = await tenantOfRequest(c.req.raw);
    if (tenant instanceof Response) return tenant;
    try {
      const registries = await learning.store.list(tenant);
      const examples = Object.entries(registries).flatMap(([registry, list]) =>
        list.map(({ query, tools, at }) => ({ registry, query, tools, at: new Date(at).toISOString() })),
      );
      return Response.json({ tenant: tenant.slice(0, 16), count: examples.length, examples });
    } catch (error) {
      return storeFailure(config, error);
    }
  });
  app.delete('/v1/learned', async (c) => {
    const tenant = await tenantOfRequest(c.req.raw);
    if (tenant instanceof Response) return tenant;
    try {
      const forgotten = await learning.store.forget(tenant);
      return Response.json({ forgotten });
    } catch (error) {
      return storeFailure(config, error);
    }
  });
  return app;
}

function failure(status: number, code: string, message: string): Response {
  return Response.json(
    { error: { code, message } },
    { status, ...(status === 401 ? { headers: { 'www-authenticate': 'Bearer realm="loopctl"' } } : {}) },
  );
}

function storeFailure(config: ProxyConfig, error: unknown): Response {
  config.onError?.(error);
  // The detail (a path, a binding) is the operator's: the server log has it.
  return failure(503, 'store_unavailable', 'the learned traffic store is unavailable; see the server log');
}
