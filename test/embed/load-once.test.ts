import { describe, expect, it } from 'vitest';
import { loadOnce } from '../../src/embed/load-once.js';

describe('loadOnce', () => {
  it('loads once for concurrent callers, retries after a failure, and hands back what reset forgets', async () => {
    let calls = 0;
    const model = loadOnce(async () => {
      calls++;
      if (calls === 1) throw new Error('server not up yet');
      return { session: calls };
    });
    await expect(model.get()).rejects.toThrow('server not up yet');
    expect(model.value).toBeUndefined();
    const [a, b] = await Promise.all([model.get(), model.get()]);
    expect(a).toBe(b);
    expect(calls).toBe(2);
    expect(model.value).toEqual({ session: 2 });
    expect(await model.reset()).toEqual({ session: 2 });
    expect(model.value).toBeUndefined();
    expect(await model.reset()).toBeUndefined();
    expect(await model.get()).toEqual({ session: 3 });
  });
});
