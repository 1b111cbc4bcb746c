/**
 * A {@link VectorCache} in the browser's IndexedDB, through `idb-keyval` (imported lazily, so
 * the core bundle carries none of it and non-browser runtimes never load it).
 *
 * @module loopctl/idb
 */
import type { VectorCache } from '../embed/vector-cache.js';
import { mergeOptions } from '../options.js';

/** Options for {@link idbVectorCache}. */
export interface IdbVectorCacheOptions {
  /**
   * IndexedDB database name. Default `'loopctl'`. idb-keyval's `createStore` opens the
   * database at version 1 and creates the store only then, so use a database dedicated to
   * this cache: a store cannot be added to a database that already exists.
   */
  dbName?: string;
  /** Object store name. Default `'vectors'`. */
  storeName?: string;
}

type IdbKeyval = typeof import('idb-keyval');
type Store = ReturnType<IdbKeyval['createStore']>;

/**
 * Corpus vectors persisted in IndexedDB, so a page reload reuses them instead of re-embedding
 * the registry. Values are stored as `Uint8Array` (structured clone keeps the type).
 *
 * @example
 * import { idbVectorCache } from 'loopctl/idb'
 * const selector = new EmbeddingSelector(embedder, { cache: idbVectorCache() })
 */
export function idbVectorCache(options: IdbVectorCacheOptions = {}): VectorCache {
  const { dbName, storeName } = mergeOptions({ dbName: 'loopctl', storeName: 'vectors' }, options);
  let opened: Promise<{ idb: IdbKeyval; store: Store }> | undefined;

  const open = (): Promise<{ idb: IdbKeyval; store: Store }> => {
    opened ??= import('idb-keyval').then(
      (idb) => ({ idb, store: idb.createStore(dbName, storeName) }),
      (error: unknown) => {
        opened = undefined; // let a later call retry the import
        throw error;
      },
    );
    return opened;
  };

  return {
    async get(key) {
      const { idb, store } = await open();
      return toBytes(await idb.get<unknown>(key, store));
    },
    async set(key, value) {
      const { idb, store } = await open();
      // Structured clone copies a view's whole buffer; store exactly the bytes.
      await idb.set(key, exactBytes(value), store);
    },
    async delete(key) {
      const { idb, store } = await open();
      await idb.del(key, store);
    },
  };
}

// Anything not bytes (a foreign value under our key) is a miss, not a crash.
function toBytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return undefined;
}

function exactBytes(value: Uint8Array): Uint8Array {
  return value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? value : value.slice();
}
