#!/usr/bin/env node
// The CLI runs from the built bundle: `npm run build` first when working from a checkout.
import { main, UsageError } from '../dist/cli.js';

/**
 * Exit once stdout and stderr have handed everything to the OS. A pipe (`| jq`) takes 64 KiB at
 * a time; Node queues the rest, and a bare process.exit() drops it: the reader got JSON cut at
 * 65,536 bytes. A write's callback runs after every write queued before it, so the empty writes'
 * callbacks mark the end; the exit then comes even where a library left a handle open.
 */
function exitWhenFlushed(code) {
  process.exitCode = code;
  let open = 2;
  const flushed = () => {
    open -= 1;
    if (open === 0) process.exit(code);
  };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}

// A reader that stops early (`| head`) closes the pipe: the rest of the output has nowhere to
// go, which is not the CLI's failure.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

main(process.argv.slice(2)).then(exitWhenFlushed, (error) => {
  process.stderr.write(`loopctl: ${error instanceof UsageError ? error.message : (error?.message ?? error)}\n`);
  exitWhenFlushed(error instanceof UsageError ? 2 : 1);
});
