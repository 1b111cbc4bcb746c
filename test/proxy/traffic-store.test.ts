/**
 * The learned-traffic stores: idempotent adds, the bounds (examples per registry, bytes per
 * tenant, writes per minute), tenants apart, forgetting, and the file store surviving a re-open.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileTrafficStore } from '../../src/hono/proxy/learn/file-traffic-store.js';
import { credentialOf, registryOf, tenantOf } from '../../src/hono/proxy/learn/tenant-id.js';
import {
  addExamples,
  DEFAULT_LEARN_BOUNDS,
  emptyTenant,
  tenantBytes,
} from '../../src/hono/proxy/learn/tenant-state.js';
import { memoryTrafficStore } from '../../src/hono/proxy/learn/traffic-store.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const example = (n: number, tools = ['get_weather']) => ({ key: `k${n}`, query: `prompt ${n}`, tools });

describe('addExamples', () => {
  it('counts an example once by its key, and replaces it when its tools change', () => {
    const state = emptyTenant();
    expect(addExamples(state, 'r', [example(1)], DEFAULT_LEARN_BOUNDS, 0).written).toBe(1);
    expect(addExamples(state, 'r', [example(1)], DEFAULT_LEARN_BOUNDS, 1).written).toBe(0);
    expect(state.version).toBe(1);
    expect(addExamples(state, 'r', [example(1, ['get_weather', 'send_email'])], DEFAULT_LEARN_BOUNDS, 2).written).toBe(
      1,
    );
    expect(state.registries.r).toHaveLength(1);
    expect(state.registries.r?.[0]?.tools).toEqual(['get_weather', 'send_email']);
  });

  it('keeps the newest examples per registry', () => {
    const state = emptyTenant();
    const bounds = { ...DEFAULT_LEARN_BOUNDS, maxExamples: 3 };
    for (let n = 0; n < 5; n++) addExamples(state, 'r', [example(n)], bounds, n);
    expect(state.registries.r?.map((e) => e.key)).toEqual(['k2', 'k3', 'k4']);
  });

  it('keeps a tenant within its bytes, the oldest of any registry going first', () => {
    const state = emptyTenant();
    const bounds = { ...DEFAULT_LEARN_BOUNDS, maxBytes: 400 };
    for (let n = 0; n < 20; n++) addExamples(state, n % 2 ? 'r1' : 'r2', [example(n)], bounds, n);
    expect(tenantBytes(state)).toBeLessThanOrEqual(400);
    const kept = Object.values(state.registries)
      .flat()
      .map((e) => e.key);
    expect(kept).toContain('k19');
    expect(kept).not.toContain('k0');
  });

  it('refuses writes past the minute budget, and takes them again a minute later', () => {
    const state = emptyTenant();
    const bounds = { ...DEFAULT_LEARN_BOUNDS, writesPerMinute: 2 };
    expect(addExamples(state, 'r', [example(1)], bounds, 0).written).toBe(1);
    expect(addExamples(state, 'r', [example(2)], bounds, 10).written).toBe(1);
    const third = addExamples(state, 'r', [example(3)], bounds, 20);
    expect(third.written).toBe(0);
    expect(third.refused).toMatch(/2 learning writes a minute/);
    expect(addExamples(state, 'r', [example(3)], bounds, 60_001).written).toBe(1);
  });
});

describe('tenant and registry ids', () => {
  it('are keyed digests of the credential, never the credential', async () => {
    const headers = new Headers({ authorization: 'Bearer sk-secret' });
    expect(credentialOf(headers)).toBe('sk-secret');
    const id = await tenantOf(headers, 'passthrough', 'server-key');
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(id).not.toContain('sk-secret');
    expect(await tenantOf(headers, 'passthrough', 'other-key')).not.toBe(id);
    expect(await tenantOf(new Headers({ 'x-api-key': 'sk-secret' }), 'passthrough', 'server-key')).toBe(id);
    expect(await tenantOf(new Headers({ 'x-api-key': 'sk-other' }), 'passthrough', 'server-key')).not.toBe(id);
  });

  it('name a registry by its tools, in any order', async () => {
    expect(await registryOf(['b', 'a'])).toBe(await registryOf(['a', 'b']));
    expect(await registryOf(['a'])).not.toBe(await registryOf(['a', 'b']));
  });
});

describe('memoryTrafficStore', () => {
  it('keeps tenants apart and forgets one without the other', async () => {
    const store = memoryTrafficStore();
    await store.add(A, 'r', [example(1)]);
    await store.add(B, 'r', [example(2)]);
    expect((await store.snapshot(A, 'r')).examples.map((e) => e.key)).toEqual(['k1']);
    const before = (await store.snapshot(A, 'r')).version;
    expect(await store.forget(A)).toBe(1);
    const after = await store.snapshot(A, 'r');
    expect(after.examples).toEqual([]);
    expect(after.version).toBeGreaterThan(before);
    expect(Object.keys(await store.list(B))).toEqual(['r']);
  });

  it('serializes concurrent adds of one tenant: none is lost', async () => {
    const store = memoryTrafficStore();
    await Promise.all(Array.from({ length: 20 }, (_, n) => store.add(A, 'r', [example(n)])));
    expect((await store.snapshot(A, 'r')).examples).toHaveLength(20);
  });
});

describe('fileTrafficStore', () => {
  const folders: string[] = [];
  afterEach(async () => {
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });

  it('survives a re-open, written atomically (no temporary file left)', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loopctl-learned-'));
    folders.push(folder);
    await fileTrafficStore(folder).add(A, 'r', [example(1), example(2)]);
    const reopened = fileTrafficStore(folder);
    const snapshot = await reopened.snapshot(A, 'r');
    expect(snapshot.examples.map((e) => e.query)).toEqual(['prompt 1', 'prompt 2']);
    expect(await readdir(folder)).toEqual([`${A}.json`]);
    expect((await reopened.snapshot(B, 'r')).examples).toEqual([]);
  });

  it('reads a damaged file as a fresh tenant, and refuses a tenant id that is not a digest', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loopctl-learned-'));
    folders.push(folder);
    await writeFile(join(folder, `${A}.json`), '{not json');
    const store = fileTrafficStore(folder);
    expect((await store.snapshot(A, 'r')).examples).toEqual([]);
    await expect(store.snapshot('../etc/passwd', 'r')).rejects.toThrow(/hex digest/);
  });
});
