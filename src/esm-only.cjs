// What `require('loopctl')` (or of any subpath) loads: package.json's `require` condition. loopctl
// ships ES modules only; without this file Node answers 'No "exports" main defined', which reads
// as a broken package rather than "use import".
throw new Error(
  "loopctl is ESM-only: use import … from 'loopctl' or await import('loopctl') (from CommonJS too; the same for subpaths such as 'loopctl/hono')",
);
