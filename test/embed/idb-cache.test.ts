import { describe, expect, it, vi } from 'vitest';

// No IndexedDB in Node (fake-indexeddb is not installed): stand in for idb-keyval's API to
// check the adapter's use of it. The real round trip runs in Chromium.
const calls = vi.hoisted(() => ({
  createStore: [] as Array<[string, string]>,
  stores: new Map<string, Map<unknown, unknown>>(),
}));
vi.mock('idb-keyval', () => {
  const storeFor = (name: string) => {
    let map = calls.stores.get(name);
    if (!map) {
      map = new Map();
      calls.stores.set(name, map);
    }
    return map;
  };
  type UseStore = { name: string };
  return {
    createStore: (dbName: string, storeName: string) => {
      calls.createStore.push([dbName, storeName]);
      return { name: `${dbName}/${storeName}` };
    },
    get: async (key: string, store: UseStore) => structuredClone(storeFor(store.name).get(key)),
    set: async (key: string, value: unknown, store: UseStore) =>
      void storeFor(store.name).set(key, structuredClone(value)),
    del: async (key: string, store: UseStore) => void storeFor(store.name).delete(key),
  };
});

const { idbVectorCache } = await import('../../src/adapters/idb.js');

describe('idbVectorCache (idb-keyval stand-in)', () => {
  it('opens its store lazily, once, with the default names', async () => {
    const cache = idbVectorCache();
    expect(calls.createStore).toEqual([]);
    await cache.set('k', new Uint8Array([1, 2, 3]));
    expect(await cache.get('k')).toEqual(new Uint8Array([1, 2, 3]));
    await cache.delete?.('k');
    expect(await cache.get('k')).toBeUndefined();
    expect(calls.createStore).toEqual([['loopctl', 'vectors']]);
  });

  it('uses custom names and stores exactly the bytes of a view', async () => {
    const cache = idbVectorCache({ dbName: 'app', storeName: 'vecs' });
    const backing = new Uint8Array([9, 9, 1, 2, 3, 9]);
    await cache.set('view', backing.subarray(2, 5));
    const stored = calls.stores.get('app/vecs')?.get('view') as Uint8Array;
    expect(stored.buffer.byteLength).toBe(3);
    expect(await cache.get('view')).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('reads an ArrayBuffer as bytes and a foreign value as a miss', async () => {
    const cache = idbVectorCache({ dbName: 'other', storeName: 'vectors' });
    await cache.get('warm-up');
    const store = calls.stores.get('other/vectors') ?? new Map();
    calls.stores.set('other/vectors', store);
    store.set('buffer', new Uint8Array([4, 5]).buffer);
    store.set('json', { hello: 1 });
    expect(await cache.get('buffer')).toEqual(new Uint8Array([4, 5]));
    expect(await cache.get('json')).toBeUndefined();
  });
});
