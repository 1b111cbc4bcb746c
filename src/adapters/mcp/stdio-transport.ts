/**
 * stdio: the server is a child process speaking newline-delimited JSON-RPC on stdin/stdout
 * (Node, and Deno through its Node compatibility; `node:child_process` is imported only
 * here, lazily, behind a specifier bundlers do not follow). What the process writes to
 * stderr is kept (its tail goes into every error about it), and how it ended is known, so
 * a crash fails the calls in flight at once with a message that says why.
 */

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ConnectionTransport, ServerTransport } from './transport.js';
import { waitAtMost } from './wait-at-most.js';

/** What the stdio transport needs, checked. */
export interface StdioSettings {
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the small inherited environment (see {@link inheritedEnvironment}). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  readonly onStderr: ((text: string) => void) | undefined;
}

/** The name given to a stdout line that is not a JSON-RPC message. */
export const STDOUT_ERROR = 'McpStdoutError';

// The stderr kept for messages, and how much of it a message shows.
const STDERR_KEPT = 4_096;
const STDERR_SHOWN = 1_000;
const LINE_SHOWN = 200;
// A line this long without a newline is not a message in progress but a broken server.
const MAX_LINE = 64 * 1024 * 1024;
// Ending the process: stdin closed, then SIGTERM, then SIGKILL, each after this long.
const EXIT_WAIT_MS = 2_000;
// After the process exits, how long its pipes may stay open before it counts as gone.
const EXIT_GRACE_MS = 500;

/** Variables a server inherits when the options do not name them (the set sudo keeps). */
const INHERITED = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'TMPDIR', 'LANG'];
const INHERITED_WINDOWS = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'TMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
];

type ChildProcessModule = typeof import('node:child_process');
type SdkTypes = typeof import('@modelcontextprotocol/sdk/types.js');

/**
 * Why stdio servers cannot run here, or undefined where they can (Node, Deno, Bun).
 * Checked before anything is imported, so a browser or a Worker gets a clear error, not a
 * failed import.
 *
 * @example
 * stdioUnsupported() // undefined in Node; 'Cloudflare Workers cannot start processes' in a Worker
 */
export function stdioUnsupported(): string | undefined {
  const global = globalThis as {
    navigator?: { userAgent?: unknown };
    Deno?: { version?: { deno?: unknown } };
    process?: { versions?: { node?: unknown } };
  };
  if (global.navigator?.userAgent === 'Cloudflare-Workers') return 'Cloudflare Workers cannot start processes';
  if (typeof global.Deno?.version?.deno === 'string') return undefined;
  if (typeof global.process?.versions?.node === 'string') return undefined;
  return 'this runtime cannot start processes';
}

/**
 * The environment a server starts with: a few variables a process needs to run (`PATH`,
 * `HOME`, …) from this process, then `extra`. Everything else (API keys, tokens) stays
 * out unless `extra` names it.
 *
 * @example
 * inheritedEnvironment({ MEMORY_FILE_PATH: '/tmp/memory.jsonl' }) // { HOME: …, PATH: …, MEMORY_FILE_PATH: '/tmp/memory.jsonl' }
 */
export function inheritedEnvironment(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  const source = (globalThis as { process?: { env?: Record<string, string | undefined>; platform?: string } }).process;
  for (const key of source?.platform === 'win32' ? INHERITED_WINDOWS : INHERITED) {
    try {
      const value = source?.env?.[key];
      // A value that starts with `()` is a shell function: never pass one on.
      if (value !== undefined && !value.startsWith('()')) env[key] = value;
    } catch {
      // Deno without --allow-env for this variable: leave it out.
    }
  }
  return { ...env, ...extra };
}

/**
 * Connections to a server started as `command args…`, one process per connection.
 *
 * @example
 * const transport = stdioTransport({ command: 'node', args: ['server.js'], env: {}, cwd: undefined, onStderr: undefined })
 */
export function stdioTransport(settings: StdioSettings): ServerTransport {
  return {
    async create(): Promise<ConnectionTransport> {
      const [childProcess, types] = await Promise.all([
        nodeImport<ChildProcessModule>('node:child_process'),
        import('@modelcontextprotocol/sdk/types.js'),
      ]);
      const process = new ProcessTransport(settings, childProcess, types);
      return {
        transport: process,
        classify: (error) =>
          error instanceof Error && (error.name === STDOUT_ERROR || error.name === 'McpSpawnError')
            ? 'transport'
            : undefined,
        describe: (error) => (error instanceof Error && error.name === 'McpSpawnError' ? error.message : undefined),
        lostReason: () => process.lostReason(),
        end: () => process.close(),
      };
    },
  };
}

/** The SDK's `Transport` over a child process's stdin and stdout. */
class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #settings: StdioSettings;
  readonly #childProcess: ChildProcessModule;
  readonly #types: SdkTypes;
  #child: ChildProcessWithoutNullStreams | undefined;
  #exited: Promise<void> | undefined;
  #stdout = '';
  #stderr = '';
  /** How the process ended, when it ended without being asked to. */
  #ended: string | undefined;
  #closing = false;
  #spoke = false;

  constructor(settings: StdioSettings, childProcess: ChildProcessModule, types: SdkTypes) {
    this.#settings = settings;
    this.#childProcess = childProcess;
    this.#types = types;
  }

  /** Why the connection is gone: the process's end (or refusal to start) with its stderr tail. */
  lostReason(): string | undefined {
    return this.#ended;
  }

  start(): Promise<void> {
    const { command, args, env, cwd } = this.#settings;
    return new Promise<void>((resolve, reject) => {
      let child: ChildProcessWithoutNullStreams;
      try {
        child = this.#childProcess.spawn(command, [...args], {
          env: inheritedEnvironment(env),
          ...(cwd === undefined ? {} : { cwd }),
          stdio: ['pipe', 'pipe', 'pipe'],
          windowsHide: true,
        });
      } catch (error) {
        reject(this.#cannotStart(error));
        return;
      }
      this.#child = child;
      child.on('error', (error) => {
        // Only a failure to start arrives before 'spawn'; a later one (a failed kill) changes nothing.
        if (child.pid === undefined) reject(this.#cannotStart(error));
      });
      child.once('spawn', () => resolve());
      this.#exited = new Promise((done) => {
        let finished = false;
        let grace: ReturnType<typeof setTimeout> | undefined;
        const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
          if (finished) return;
          finished = true;
          clearTimeout(grace);
          this.#onExit(code, signal);
          done();
        };
        // 'close' waits for stdout and stderr to end (the whole stderr tail); a grandchild that
        // inherited them (a server started through npx) may hold them open, so 'exit' is enough
        // after a short grace.
        child.once('close', finish);
        child.once('exit', (code, signal) => {
          grace = setTimeout(() => finish(code, signal), EXIT_GRACE_MS);
        });
      });
      // Writing to a process that has gone fails with EPIPE; its 'close' says the rest.
      child.stdin.on('error', () => undefined);
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => this.#onStdout(chunk));
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => this.#onStderr(chunk));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin?.writable || this.#ended !== undefined)
      return Promise.reject(new Error('the server process is not running'));
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** End the process: close its stdin, then SIGTERM, then SIGKILL, each after a bounded wait. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#closing) return this.#exited;
    this.#closing = true;
    const running = () => child.exitCode === null && child.signalCode === null;
    if (running()) {
      child.stdin.end();
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        await waitAtMost(this.#exited ?? Promise.resolve(), EXIT_WAIT_MS);
        if (!running()) break;
        child.kill(signal);
      }
    }
    // Bounded even if SIGKILL could not be delivered: unmounting never hangs.
    await waitAtMost(this.#exited ?? Promise.resolve(), EXIT_WAIT_MS);
  }

  #onStdout(chunk: string): void {
    // What was buffered holds no newline, so only the new chunk is searched: a 10,000-tool
    // tools/list (5 MB on one line) was rescanned from its start at every 64 KB chunk, 1.5 s of
    // a gateway's start-up.
    const searched = this.#stdout.length;
    this.#stdout += chunk;
    let newline = this.#stdout.indexOf('\n', searched);
    while (newline >= 0) {
      const line = this.#stdout.slice(0, newline).replace(/\r$/, '');
      this.#stdout = this.#stdout.slice(newline + 1);
      if (line.trim() !== '') this.#onLine(line);
      newline = this.#stdout.indexOf('\n');
    }
    if (this.#stdout.length > MAX_LINE) {
      this.#stdout = '';
      this.#garbage(`a line of more than ${MAX_LINE} characters`);
    }
  }

  #onLine(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = this.#types.JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      this.#garbage(JSON.stringify(line.length > LINE_SHOWN ? `${line.slice(0, LINE_SHOWN)}…` : line));
      return;
    }
    this.#spoke = true;
    this.onmessage?.(message);
  }

  /**
   * A stdout line that is not JSON-RPC. Before the server's first message it cannot be
   * spoken to: end it, so the connect fails now with this line and the stderr tail. Later,
   * the line is dropped and reported.
   */
  #garbage(what: string): void {
    const error = new Error(`the server wrote to stdout what is not JSON-RPC: ${what}`);
    error.name = STDOUT_ERROR;
    if (!this.#spoke && this.#ended === undefined) {
      this.#ended = this.#withStderr(error.message);
      this.#child?.kill('SIGKILL');
    }
    this.onerror?.(error);
  }

  #onStderr(chunk: string): void {
    this.#stderr = (this.#stderr + chunk).slice(-STDERR_KEPT);
    try {
      this.#settings.onStderr?.(chunk);
    } catch {
      // A throwing listener must not take the connection down.
    }
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (!this.#closing && this.#ended === undefined) {
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      this.#ended = this.#withStderr(`the server process ${how}${this.#spoke ? '' : ' before answering'}`);
    }
    this.#child?.stdout.removeAllListeners('data');
    this.onclose?.();
  }

  #cannotStart(error: unknown): Error {
    const { command } = this.#settings;
    const code = (error as { code?: unknown })?.code;
    const reason =
      code === 'ENOENT'
        ? 'command not found'
        : (error as { name?: unknown })?.name === 'NotCapable'
          ? 'Deno needs --allow-run to start it'
          : error instanceof Error
            ? error.message
            : String(error);
    this.#ended = `cannot start ${JSON.stringify(command)}: ${reason}`;
    const failure = new Error(this.#ended);
    failure.name = 'McpSpawnError';
    return failure;
  }

  /** `text (stderr: …last lines…)`, when the server wrote anything to stderr. */
  #withStderr(text: string): string {
    const tail = this.#stderr.trim();
    if (tail === '') return text;
    const shown = tail.length > STDERR_SHOWN ? `…${tail.slice(-STDERR_SHOWN)}` : tail;
    return `${text}; stderr: ${shown}`;
  }
}

/** Imports a runtime module only Node and Deno have; the specifier is opaque to bundlers. */
function nodeImport<T>(specifier: string): Promise<T> {
  return import(/* @vite-ignore */ specifier) as Promise<T>;
}
