import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/registry/registry.js';
import { compileValidator, describeIssues } from '../../src/registry/validate.js';

const schema = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2 },
    units: { enum: ['metric', 'imperial'] },
    days: { type: 'array', items: { type: 'integer', minimum: 1 } },
    where: { $ref: '#/$defs/point' },
  },
  required: ['city'],
  additionalProperties: false,
  $defs: {
    point: { type: 'object', properties: { lat: { type: 'number' } }, required: ['lat'] },
  },
};

describe('compileValidator', () => {
  it('accepts valid arguments with no issues', () => {
    const check = compileValidator(schema);
    expect(check({ city: 'Oslo' })).toEqual([]);
    expect(check({ city: 'Oslo', units: 'metric', days: [1, 2], where: { lat: 1.5 } })).toEqual([]);
  });

  it('an empty schema accepts anything', () => {
    const check = compileValidator({});
    for (const value of [null, 1, 'x', [1], { a: 1 }]) expect(check(value)).toEqual([]);
  });

  it('reports each leaf failure at its JSON Pointer path', () => {
    const check = compileValidator(schema);
    const paths = (value: unknown) => check(value).map((issue) => issue.path);
    expect(paths({})).toEqual(['/']);
    expect(check({})[0]?.message).toContain('city');
    expect(paths({ city: 'O' })).toEqual(['/city']);
    expect(paths({ city: 'Oslo', units: 'kelvin' })).toEqual(['/units']);
    expect(paths({ city: 'Oslo', days: [1, 0] })).toEqual(['/days/1']);
    expect(paths({ city: 'Oslo', where: {} })).toEqual(['/where']);
    expect(paths({ city: 'Oslo', where: { lat: 'north' } })).toEqual(['/where/lat']);
    expect(paths({ city: 'Oslo', extra: true })).toContain('/extra');
    expect(paths('Oslo')).toEqual(['/']);
  });

  it('reports every offending path in one pass, not just the first', () => {
    const check = compileValidator(schema);
    const paths = check({ city: 5, days: ['x'] }).map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['/city', '/days/0']));
  });

  it('honours draft-04 schemas', () => {
    // draft-04 spells exclusiveMaximum as a boolean modifier of maximum.
    const check = compileValidator({
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: { n: { type: 'number', maximum: 10, exclusiveMaximum: true } },
    });
    expect(check({ n: 9 })).toEqual([]);
    expect(check({ n: 10 }).map((issue) => issue.path)).toEqual(['/n']);
  });

  it('describeIssues names every path on one line', () => {
    const line = describeIssues([
      { path: '/a', message: 'bad a.' },
      { path: '/b/0', message: 'bad b.' },
    ]);
    expect(line).toBe('/a: bad a.; /b/0: bad b.');
    expect(line).not.toContain('\n');
  });
});

describe('validation never generates code (Workers forbid eval and new Function)', () => {
  const realFunction = globalThis.Function;
  // biome-ignore lint/security/noGlobalEval: the test stubs eval to prove the validator never calls it
  const realEval = globalThis.eval;
  const functionPrototype = Function.prototype;
  const realConstructor = Object.getOwnPropertyDescriptor(functionPrototype, 'constructor')!;

  /** Replace every route to runtime code generation with a throwing stub; returns the restorer. */
  function forbidCodegen(): () => void {
    // A plain function, so both `Function(...)` and `new Function(...)` reach the throw.
    const refuse = function refuse(): never {
      throw new EvalError('code generation is forbidden in this test');
    };
    globalThis.Function = refuse as unknown as FunctionConstructor;
    globalThis.eval = refuse;
    Object.defineProperty(functionPrototype, 'constructor', { ...realConstructor, value: refuse });
    return restore;
  }
  function restore(): void {
    globalThis.Function = realFunction;
    globalThis.eval = realEval;
    Object.defineProperty(functionPrototype, 'constructor', realConstructor);
  }
  afterEach(restore);

  it('the stubs really do stop code generation (control)', () => {
    forbidCodegen();
    // The three ways a code-generating validator compiles a schema.
    expect(() => new Function('return 1')).toThrow(/forbidden/);
    // biome-ignore lint/security/noGlobalEval: proving the stub refuses indirect eval
    // biome-ignore lint/complexity/noCommaOperator: the indirect-eval form is the point
    expect(() => (0, eval)('1')).toThrow(/forbidden/);
    expect(() => (() => {}).constructor('return 1')).toThrow(/forbidden/);
  });

  it('compiles and validates with eval and Function replaced by throwing stubs', () => {
    forbidCodegen();
    const check = compileValidator({
      ...schema,
      properties: { ...schema.properties, code: { pattern: '^[A-Z]{3}$' } },
    });
    expect(check({ city: 'Oslo', code: 'NOK', where: { lat: 59.9 } })).toEqual([]);
    expect(
      check({ city: 'Oslo', code: 'nok', days: [0] })
        .map((issue) => issue.path)
        .sort(),
    ).toEqual(['/code', '/days/0']);
  });

  it('dispatch validates and runs under the same stubs', async () => {
    const registry = new ToolRegistry().register(
      { name: 'weather', description: 'Weather.', parameters: schema },
      ({ city }: { city: string }) => `Sunny in ${city}`,
    );
    forbidCodegen();
    const bad = await registry.dispatch({ id: '1', name: 'weather', arguments: '{"city":"Oslo","days":[-1]}' });
    const good = await registry.dispatch({ id: '2', name: 'weather', arguments: '{"city":"Oslo"}' });
    restore();
    expect(bad.isError).toBe(true);
    expect(bad.content).toContain('/days/0');
    expect(good).toMatchObject({ isError: false, content: 'Sunny in Oslo' });
  });

  it('the validator package source contains no eval or Function constructor call', () => {
    const entry = createRequire(import.meta.url).resolve('@cfworker/json-schema');
    const folder = dirname(entry);
    const files = readdirSync(folder).filter((file) => file.endsWith('.js'));
    expect(files.length).toBeGreaterThan(3);
    const ours = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../src/registry/validate.ts'), 'utf8');
    for (const text of [...files.map((file) => readFileSync(join(folder, file), 'utf8')), ours]) {
      expect(text).not.toMatch(/\bnew\s+Function\s*\(|\beval\s*\(|\bFunction\s*\(\s*['"`]/);
    }
  });
});
