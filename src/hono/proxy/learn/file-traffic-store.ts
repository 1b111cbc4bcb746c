/**
 * Learned traffic in files (Node and Deno): one JSON file per tenant under a folder, written
 * to a temporary name and renamed over the old one, so a crash leaves the old state or the new,
 * never half of one; it survives a restart. One process writes a folder (the store serializes
 * its own writes per tenant; two processes on one folder would each keep their last write).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LearnBounds, TenantState } from './tenant-state.js';
import { DEFAULT_LEARN_BOUNDS, emptyTenant, tenantFrom } from './tenant-state.js';
import type { LearnedTrafficStore } from './traffic-store.js';
import { stateStore } from './traffic-store.js';

// Tenant ids are hex digests; anything else never becomes a path.
const TENANT_ID = /^[0-9a-f]{16,128}$/;

/**
 * A store keeping each tenant in `<folder>/<tenant>.json`.
 *
 * @example
 * createApp({ registry, proxy: { learn: fileTrafficStore('.loopctl/learned') } })
 */
export function fileTrafficStore(folder: string, bounds: Partial<LearnBounds> = {}): LearnedTrafficStore {
  const path = (tenant: string): string => {
    if (!TENANT_ID.test(tenant)) throw new RangeError('a tenant id is a hex digest');
    return join(folder, `${tenant}.json`);
  };
  let made: Promise<unknown> | undefined;
  return stateStore(
    {
      async read(tenant): Promise<TenantState> {
        let text: string;
        try {
          text = await readFile(path(tenant), 'utf8');
        } catch (error) {
          if ((error as { code?: string }).code === 'ENOENT') return emptyTenant();
          throw error;
        }
        try {
          return tenantFrom(JSON.parse(text));
        } catch {
          return emptyTenant(); // a damaged file is a fresh tenant, never a failed request
        }
      },
      async write(tenant, state) {
        made ??= mkdir(folder, { recursive: true });
        await made;
        const target = path(tenant);
        const temporary = `${target}.${crypto.randomUUID()}.tmp`;
        await writeFile(temporary, JSON.stringify(state));
        await rename(temporary, target);
      },
    },
    { ...DEFAULT_LEARN_BOUNDS, ...bounds },
  );
}
