/**
 * The Node versions the README promises hold for what package-lock.json installs, read with
 * npm's own range rules (semver, as npm's EBADENGINE check reads them):
 *
 * - a user of the published package: every package its dependency and its optional peers pull
 *   in accepts the oldest Node that loopctl's `engines` admits, and the README names that Node;
 * - a contributor: `devEngines` names the Node the dev tooling needs; on its oldest Node 20 the
 *   packages that warn (EBADENGINE) are exactly the ones the README lists, all dev-only; on its
 *   oldest Node 22 none warn.
 *
 * Platform binaries (optional packages limited by `os`/`cpu`, and what only they pull in) are
 * left out: npm skips the ones that do not fit without a warning, and their engines repeat
 * their parent package's.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

interface Semver {
  satisfies(version: string, range: string, options?: { includePrerelease?: boolean }): boolean;
  minVersion(range: string): { version: string } | null;
}
const semver = createRequire(import.meta.url)('semver') as Semver;

interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  engines: { node: string };
  devEngines?: { runtime?: { name: string; version: string } };
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as { packages: Record<string, LockEntry> };
const readme = readFileSync(`${root}README.md`, 'utf8');

/** The package name of a lock path (`node_modules/a/node_modules/@b/c` → `@b/c`). */
function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** `name` as Node resolves it from the package at lock path `from` ('' is the root). */
function resolve(from: string, name: string): string | undefined {
  for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf('/node_modules/')))) {
    const path = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (lock.packages[path]) return path;
    if (!base) return undefined;
  }
}

/** Lock path → the lock paths that depend on it. */
const dependents = new Map<string, string[]>();
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
    const target = resolve(path, name);
    if (target !== undefined) dependents.set(target, [...(dependents.get(target) ?? []), path]);
  }
}

/**
 * An optional package for some platforms only: limited by `os`/`cpu` itself, or wanted only by
 * such packages (a WASM binding's runtime).
 */
function isPlatformBinary(path: string, seen = new Set<string>()): boolean {
  const entry = lock.packages[path] as LockEntry;
  if (entry.optional !== true || seen.has(path)) return false;
  if (entry.os !== undefined || entry.cpu !== undefined) return true;
  seen.add(path);
  const wanting = dependents.get(path) ?? [];
  return wanting.length > 0 && wanting.every((parent) => isPlatformBinary(parent, seen));
}

/** Lock paths of everything `names` pull in, transitively (what a user's install holds). */
function closure(names: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue: [string, string][] = names.map((name) => ['', name]);
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [from, name] = next;
    const path = resolve(from, name);
    if (path === undefined) throw new Error(`${name} (needed by ${from || 'loopctl'}) is not in package-lock.json`);
    if (seen.has(path)) continue;
    seen.add(path);
    const entry = lock.packages[path] as LockEntry;
    const optionalPeer = (peer: string) => entry.peerDependenciesMeta?.[peer]?.optional === true;
    const wanted = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      // npm installs a package's required peers with it.
      ...Object.keys(entry.peerDependencies ?? {}).filter((peer) => !optionalPeer(peer)),
    ];
    for (const dep of wanted) queue.push([path, dep]);
  }
  return seen;
}

/** `name@version (engines.node)` of each package among `paths` whose engines refuse Node `version`. */
function refusing(paths: Iterable<string>, version: string): string[] {
  const out: string[] = [];
  for (const path of paths) {
    const entry = lock.packages[path] as LockEntry;
    const range = entry.engines?.node;
    if (range === undefined || isPlatformBinary(path)) continue;
    if (!semver.satisfies(version, range, { includePrerelease: true }))
      out.push(`${nameOf(path)}@${entry.version} (${range})`);
  }
  return out.sort();
}

/** The lowest version of each major in `range` (`^20.19.0 || >=22.12.0` → 20.19.0, 22.12.0). */
function floors(range: string): string[] {
  return range.split('||').map((part) => {
    const floor = semver.minVersion(part.trim());
    if (!floor) throw new Error(`no version satisfies ${part}`);
    return floor.version;
  });
}

/** The README's "Node versions" paragraph in its set-up section. */
function nodeVersionsParagraph(): string {
  const paragraph = readme.split(/\n\s*\n/).find((text) => text.startsWith('**Node versions.**'));
  if (!paragraph) throw new Error('README.md has no "**Node versions.**" paragraph');
  return paragraph.replace(/\s+/g, ' ');
}

describe('Node versions a user of the published package needs', () => {
  const published = closure([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)]);
  const oldest = semver.minVersion(pkg.engines.node)?.version ?? '';

  it('its dependency and optional peers, with all they pull in, accept the oldest Node engines admits', () => {
    expect(published.size).toBeGreaterThan(Object.keys(pkg.peerDependencies).length);
    expect(refusing(published, oldest)).toEqual([]);
  });

  it('the README names that Node', () => {
    const [, stated] = /The published package needs Node (\d+\.\d+)\+/.exec(nodeVersionsParagraph()) ?? [];
    expect(`${stated}.0`).toBe(oldest);
  });
});

describe('Node versions a contributor needs', () => {
  const everything = Object.keys(lock.packages).filter((path) => path !== '');
  const devRange = pkg.devEngines?.runtime?.version ?? '';

  it('devEngines names the Node the dev tooling needs, one the published package runs on, as the README does', () => {
    expect(pkg.devEngines?.runtime?.name).toBe('node');
    // Every floor of the dev range is also a Node the published package runs on.
    for (const floor of floors(devRange)) expect(semver.satisfies(floor, pkg.engines.node)).toBe(true);
    const paragraph = nodeVersionsParagraph();
    for (const floor of floors(devRange)) expect(paragraph).toContain(`Node ${floor.replace(/\.0$/, '')}+`);
  });

  it('on Node 20 the packages that warn EBADENGINE are the dev-only ones the README lists', () => {
    const node20 = floors(devRange).find((floor) => floor.startsWith('20.')) ?? '';
    expect(node20).not.toBe('');
    const warned = refusing(everything, node20);
    const names = [...new Set(warned.map((line) => line.replace(/@[^@]+$/, '')))].sort();
    const listed = /`npm ci` warns `EBADENGINE` for (.+?): dev dependencies only/.exec(nodeVersionsParagraph())?.[1];
    expect(listed, 'the README says which packages warn on Node 20').toBeDefined();
    const readmeNames = [...(listed ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]).sort();
    expect(readmeNames).toEqual(names);
    for (const path of everything.filter((path) => names.includes(nameOf(path)))) {
      expect(lock.packages[path]?.dev, `${path} is a dev dependency only`).toBe(true);
    }
  });

  it('on Node 22 nothing warns', () => {
    const node22 = floors(devRange).find((floor) => floor.startsWith('22.')) ?? '';
    expect(node22).not.toBe('');
    expect(refusing(everything, node22)).toEqual([]);
  });

  it('.ci/run says the Node 20 warnings are expected', () => {
    const ci = readFileSync(`${root}.ci/run`, 'utf8');
    expect(ci).toContain('EBADENGINE');
  });
});
