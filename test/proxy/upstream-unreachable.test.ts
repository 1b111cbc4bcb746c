/**
 * A proxy whose model server is not running (the first state of a local set-up) answers 502 in
 * the provider's shape and, with the app's default error reporting, logs one plain line naming
 * the upstream and what to start, with no stack; an internal error still gets its stack.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, optionsFromVars, UpstreamUnreachableError } from '../../src/hono/index.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { holdUnreachablePort, type UnreachablePort } from '../support/unreachable-port.js';

const TOKEN = 'upstream-unreachable-token-0123';

let unreachable: UnreachablePort;
beforeAll(async () => {
  unreachable = await holdUnreachablePort();
});
afterAll(() => unreachable.close());
afterEach(() => vi.restoreAllMocks());

describe('no model server behind the proxy', () => {
  it('502, and the default onError logs one plain line saying what to start', async () => {
    const dead = `${unreachable.origin}/v1`;
    const logs: string[] = [];
    const errors: unknown[][] = [];
    vi.spyOn(console, 'info').mockImplementation((...args: unknown[]) => void logs.push(args.join(' ')));
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args));
    const app = createApp({
      ...optionsFromVars({ LOOPCTL_TOKEN: TOKEN, MODEL_BASE_URL: dead }),
      registry: new ToolRegistry(),
    });
    const response = await app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('upstream_unreachable');
    expect(errors).toEqual([]);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(
      new RegExp(
        `^\\[loopctl\\] proxy: no openai upstream answered at ${dead.replaceAll('.', '\\.')} \\(.+\\); start the model server there \\(e\\.g\\. ollama serve\\), or point MODEL_BASE_URL or PROXY_OPENAI_BASE_URL at one$`,
      ),
    );
    expect(logs[0]).not.toContain('\n');
  });

  it('a custom onError receives an UpstreamUnreachableError with the protocol and the URL', async () => {
    const dead = `${unreachable.origin}/v1`;
    const seen: unknown[] = [];
    const app = createApp({
      ...optionsFromVars({ LOOPCTL_TOKEN: TOKEN, MODEL_BASE_URL: dead }),
      registry: new ToolRegistry(),
      onError: (error) => seen.push(error),
    });
    const response = await app.request('/v1/models', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(502);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(UpstreamUnreachableError);
    expect(seen[0]).toMatchObject({ protocol: 'openai', url: dead });
  });
});
