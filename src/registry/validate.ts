import { Validator } from '@cfworker/json-schema';
import type { JsonSchema } from './schema.js';

/** One failed rule: where in the arguments, and what is wrong. */
export interface ArgumentIssue {
  /** JSON Pointer into the arguments (`/list/1`), or `/` for the root. */
  readonly path: string;
  readonly message: string;
}

/** Checks a value against a tool's JSON Schema; returns the issues, empty when valid. */
export type ArgumentValidator = (value: unknown) => readonly ArgumentIssue[];

// Keywords whose error only summarises a nested failure that is reported on its own.
const SUMMARY_KEYWORDS = new Set([
  'properties',
  'items',
  'prefixItems',
  'additionalItems',
  'allOf',
  'anyOf',
  'oneOf',
  '$ref',
  'unevaluatedProperties',
  'patternProperties',
  'dependentSchemas',
  'contains',
]);

/**
 * Compile a validator for a tool's parameters. Uses `@cfworker/json-schema`, which never calls
 * `eval` or `new Function` (Cloudflare Workers forbid both). An empty schema accepts anything.
 *
 * @example
 * const check = compileValidator({ type: 'object', required: ['city'] })
 * check({}) // [{ path: '/', message: 'Instance does not have required property "city".' }]
 */
export function compileValidator(schema: JsonSchema): ArgumentValidator {
  if (Object.keys(schema).length === 0) return () => [];
  const draft = typeof schema.$schema === 'string' && schema.$schema.includes('draft-04') ? '4' : '2020-12';
  // The validator annotates the schema it is given; hand it a private copy so the caller's
  // (possibly frozen) schema stays untouched.
  const validator = new Validator(structuredClone(schema) as never, draft, false);
  return (value) => {
    const result = validator.validate(value);
    if (result.valid) return [];
    const leaves = result.errors.filter((unit) => !SUMMARY_KEYWORDS.has(unit.keyword));
    const chosen = leaves.length > 0 ? leaves : result.errors;
    return chosen.map((unit) => ({ path: pointer(unit.instanceLocation), message: unit.error }));
  };
}

function pointer(instanceLocation: string): string {
  const path = instanceLocation.replace(/^#/, '');
  return path === '' ? '/' : path;
}

/** One line naming every offending path, for an error result the model can act on. */
export function describeIssues(issues: readonly ArgumentIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}
