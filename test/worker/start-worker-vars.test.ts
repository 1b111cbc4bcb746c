/**
 * `npm start` (scripts/start-worker.mjs) hands the worker every documented variable set in the
 * environment (`wrangler dev --var`): wrangler dev itself reads only wrangler.toml and .dev.vars,
 * so a variable missing from the list is silently ignored (`PROXY_OPENAI_BASE_URL=… npm start`
 * used to forward every proxy call to the default Ollama address). The real start is in
 * wrangler-dev.test.ts; this checks the list against the declared variables and the docs' tables.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PASSED_VARS, varArgs } from '../../scripts/start-worker.mjs';
import { LOOPCTL_VAR_NAMES, WORKER_VAR_NAMES } from '../../src/hono/config-var-names.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Variables of the Node and Deno entries only: a Worker has no port, host or model folder of its own. */
const NOT_FOR_WORKERS = ['PORT', 'HOST', 'LOOPCTL_MODEL_PATH', 'LOOPCTL_VECTORS'];

/** The variable names in the first column of a doc's "## Configuration" table. */
function documentedVariables(doc: string): string[] {
  const text = readFileSync(`${root}${doc}`, 'utf8');
  const start = text.indexOf('\n## Configuration\n');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!));
}

describe('npm start passes every documented variable to the worker', () => {
  it("passes the worker's whole list: LOOPCTL_*, MODEL_*, PROXY_*, CORS_ORIGINS, ALLOWED_HOSTS, EMBEDDING_MODEL, VECTORS_TTL_SECONDS", () => {
    expect([...PASSED_VARS].sort()).toEqual([...WORKER_VAR_NAMES].sort());
    for (const name of [...LOOPCTL_VAR_NAMES, 'EMBEDDING_MODEL', 'VECTORS_TTL_SECONDS']) {
      expect(varArgs({ [name]: 'value' }).args).toEqual(['--var', `${name}:value`]);
    }
  });

  it('PROXY_OPENAI_BASE_URL and the other proxy variables set in the environment become --var arguments', () => {
    const env = {
      PROXY_OPENAI_BASE_URL: 'http://127.0.0.1:9000/v1',
      PROXY_ANTHROPIC_BASE_URL: 'http://127.0.0.1:9001',
      PROXY_SELECTOR: 'bm25',
      PROXY_K: '4',
      PROXY_POLICY: 'narrow',
      VECTORS_TTL_SECONDS: '0',
      UNRELATED: 'kept out',
    };
    expect(varArgs(env).names.sort()).toEqual(
      Object.keys(env)
        .filter((name) => name !== 'UNRELATED')
        .sort(),
    );
  });

  it.each(['docs/worker.md', 'docs/proxy.md'])(
    'every variable in the Configuration table of %s reaches the worker',
    (doc) => {
      const documented = documentedVariables(doc);
      expect(documented.length).toBeGreaterThan(5);
      const missing = documented.filter((name) => !PASSED_VARS.includes(name) && !NOT_FOR_WORKERS.includes(name));
      expect(missing).toEqual([]);
    },
  );
});

describe('every variable the entries read is documented', () => {
  it('each one is in the Configuration table of docs/worker.md or docs/proxy.md', () => {
    const documented = new Set([...documentedVariables('docs/worker.md'), ...documentedVariables('docs/proxy.md')]);
    expect(WORKER_VAR_NAMES.filter((name) => !documented.has(name))).toEqual([]);
  });
});
