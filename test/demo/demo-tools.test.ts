import { describe, expect, it } from 'vitest';
import { DEMO_TOOLS, registerDemoTools } from '../../demo/demo-tools.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { JsonSchema } from '../../src/registry/schema.js';
import { compileValidator } from '../../src/registry/validate.js';

/** Minimal valid arguments for a schema: every required property, typed. */
function sampleArgs(schema: JsonSchema): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const args: Record<string, unknown> = {};
  for (const name of (schema.required ?? []) as string[]) {
    const property = properties[name] ?? {};
    const type = property.type;
    if (Array.isArray(property.enum)) args[name] = property.enum[0];
    else if (type === 'integer' || type === 'number') args[name] = (property.minimum as number | undefined) ?? 3;
    else if (type === 'boolean') args[name] = true;
    else if (type === 'array') args[name] = ['ana@acme.example'];
    else if (property.format === 'uri') args[name] = 'https://example.com/page';
    else if (property.format === 'date') args[name] = '2025-06-03';
    else if (property.format === 'date-time') args[name] = '2025-06-03T10:00:00Z';
    else if (property.minLength === 3 && property.maxLength === 3) args[name] = 'USD';
    else args[name] = 'Oslo';
  }
  return args;
}

describe('demo tools', () => {
  it('are about sixty, uniquely and wire-safely named, with real schemas', () => {
    expect(DEMO_TOOLS.length).toBeGreaterThanOrEqual(55);
    expect(new Set(DEMO_TOOLS.map((tool) => tool.name)).size).toBe(DEMO_TOOLS.length);
    for (const tool of DEMO_TOOLS) {
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.description.length).toBeGreaterThan(20);
      expect(tool.parameters.type).toBe('object');
      expect(() => compileValidator(tool.parameters)).not.toThrow();
    }
  });

  it('answer every call offline and deterministically, errors as results', async () => {
    const a = registerDemoTools(new ToolRegistry());
    const b = registerDemoTools(new ToolRegistry());
    let ok = 0;
    for (const tool of DEMO_TOOLS) {
      const call = { id: 'c1', name: tool.name, arguments: JSON.stringify(sampleArgs(tool.parameters)) };
      const [first, second] = await Promise.all([a.dispatch(call), b.dispatch(call)]);
      expect(first).toEqual(second);
      expect(first.content.length).toBeGreaterThan(0);
      if (!first.isError) ok++;
    }
    // Sample arguments are generic; most tools still succeed on them.
    expect(ok).toBeGreaterThan(DEMO_TOOLS.length * 0.8);
  });

  it('fail on purpose where a demo needs a failing tool', async () => {
    const registry = registerDemoTools(new ToolRegistry());
    const fetched = await registry.dispatch({
      id: '1',
      name: 'fetch_url',
      arguments: '{"url":"https://down.invalid/"}',
    });
    expect(fetched.isError).toBe(true);
    const math = await registry.dispatch({
      id: '2',
      name: 'calculate',
      arguments: '{"expression":"2^10 - (3 * 4) / 2"}',
    });
    expect(JSON.parse(math.content).result).toBe(1018);
  });
});
