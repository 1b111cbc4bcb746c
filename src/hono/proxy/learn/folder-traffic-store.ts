/**
 * Learned traffic in a folder of files, over whichever file API the runtime has (Node's
 * `node:fs`, Deno's `Deno.*`): one JSON file per tenant, written to a temporary name and renamed
 * over the old one, so a crash leaves the old state or the new, never half of one; it survives a
 * restart. One process writes a folder (the store serializes its own writes per tenant; two
 * processes on one folder would each keep their last write). This module imports no runtime
 * API: the entries pass theirs.
 */
import type { LearnBounds, TenantState } from './tenant-state.js';
import { DEFAULT_LEARN_BOUNDS, emptyTenant, tenantFrom } from './tenant-state.js';
import type { LearnedTrafficStore } from './traffic-store.js';
import { stateStore } from './traffic-store.js';

/** The four file operations the store needs, from the runtime. */
export interface FolderFiles {
  /** The file's text, or undefined when there is no such file. */
  readText(path: string): Promise<string | undefined>;
  writeText(path: string, text: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** Make the folder and its parents; no error when it exists. */
  makeFolder(path: string): Promise<void>;
}

// Tenant ids are hex digests; anything else never becomes a path.
const TENANT_ID = /^[0-9a-f]{16,128}$/;

/**
 * A store keeping each tenant in `<folder>/<tenant>.json` through `files`.
 *
 * @example
 * const store = folderTrafficStore('.loopctl/learned', denoFolderFiles())
 */
export function folderTrafficStore(
  folder: string,
  files: FolderFiles,
  bounds: Partial<LearnBounds> = {},
): LearnedTrafficStore {
  const path = (tenant: string): string => {
    if (!TENANT_ID.test(tenant)) throw new RangeError('a tenant id is a hex digest');
    // A forward slash joins on every runtime and platform Node and Deno run on.
    return `${folder.replace(/[\\/]+$/, '')}/${tenant}.json`;
  };
  let made: Promise<unknown> | undefined;
  return stateStore(
    {
      async read(tenant): Promise<TenantState> {
        const text = await files.readText(path(tenant));
        if (text === undefined) return emptyTenant();
        try {
          return tenantFrom(JSON.parse(text));
        } catch {
          return emptyTenant(); // a damaged file is a fresh tenant, never a failed request
        }
      },
      async write(tenant, state) {
        made ??= files.makeFolder(folder).catch((error: unknown) => {
          made = undefined;
          throw error;
        });
        await made;
        const target = path(tenant);
        const temporary = `${target}.${crypto.randomUUID()}.tmp`;
        await files.writeText(temporary, JSON.stringify(state));
        await files.rename(temporary, target);
      },
    },
    { ...DEFAULT_LEARN_BOUNDS, ...bounds },
  );
}

/** The part of the `Deno` global the store uses (typed structurally: no Deno types needed). */
interface DenoFilesLike {
  readTextFile(path: string): Promise<string>;
  writeTextFile(path: string, text: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  mkdir(path: string, options: { recursive: boolean }): Promise<void>;
  errors: { NotFound: new (...args: never[]) => Error };
}

/**
 * Deno's file API as {@link FolderFiles} (needs `--allow-read` and `--allow-write` on the folder).
 *
 * @example
 * folderTrafficStore(Deno.env.get('PROXY_LEARN_DIR') ?? '.loopctl/learned', denoFolderFiles())
 */
export function denoFolderFiles(): FolderFiles {
  const deno = (globalThis as { Deno?: DenoFilesLike }).Deno;
  if (!deno) throw new Error('denoFolderFiles needs the Deno runtime');
  return {
    async readText(path) {
      try {
        return await deno.readTextFile(path);
      } catch (error) {
        if (error instanceof deno.errors.NotFound) return undefined;
        throw error;
      }
    },
    writeText: (path, text) => deno.writeTextFile(path, text),
    rename: (from, to) => deno.rename(from, to),
    makeFolder: (path) => deno.mkdir(path, { recursive: true }),
  };
}
