/**
 * What `npm pack` may ship: the library and nothing else, whatever was built locally (the demo,
 * the model, ORT runtimes, sources). Shared by test/package/packed-files.test.ts and
 * scripts/consumer-check.mjs.
 *
 * @example
 * const { files, size } = packDryRun(root);
 * const problems = packedFileProblems(files.map((f) => f.path), JSON.parse(readFileSync('package.json', 'utf8')));
 */
import { execFileSync } from 'node:child_process';

/** The only paths a tarball may hold. */
export const ALLOWED = Object.freeze([
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^bin\/[\w-]+\.mjs$/,
  /^dist\/[\w-]+\.js$/,
  /^dist\/[\w-]+\.js\.map$/,
  // The `require` target that says loopctl is ESM-only.
  /^dist\/esm-only\.cjs$/,
  /^dist\/types\/([\w-]+\/)*[\w-]+\.d\.ts$/,
]);

/** Every file path `package.json` points at (exports, main, types, bin). */
export function declaredFiles(pkg) {
  const targets = [pkg.main, pkg.types, ...Object.values(pkg.bin ?? {})];
  const walk = (value) => {
    if (typeof value === 'string') targets.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(pkg.exports);
  return [...new Set(targets.filter(Boolean).map((t) => t.replace(/^\.\//, '')))].sort();
}

/** The problems with a packed file list: files that must not ship, and declared files missing. */
export function packedFileProblems(paths, pkg) {
  const shipped = new Set(paths);
  return [
    ...paths.filter((p) => !ALLOWED.some((re) => re.test(p))).map((p) => `ships ${p}, which is not library output`),
    ...declaredFiles(pkg)
      .filter((p) => !shipped.has(p))
      .map((p) => `package.json points at ${p}, which is not packed`),
  ];
}

/** `npm pack --dry-run --json` in `dir`: the file list and sizes npm would publish. */
export function packDryRun(dir) {
  const json = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [report] = JSON.parse(json);
  return { files: report.files, size: report.size, unpackedSize: report.unpackedSize };
}
