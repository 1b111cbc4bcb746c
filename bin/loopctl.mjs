#!/usr/bin/env node
// The CLI runs from the built bundle: `npm run build` first when working from a checkout.
import { main, UsageError } from '../dist/cli.js';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`loopctl: ${error instanceof UsageError ? error.message : (error?.message ?? error)}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
