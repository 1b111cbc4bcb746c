/**
 * Drives Debian's Chromium with playwright-core (no browser download): a fresh persistent
 * profile per context, and a guard that records every request leaving 127.0.0.1 so a test can
 * fail on it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** The Chromium binary (Debian's package by default). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags for a quiet, offline-friendly headless Chromium. */
export const BASE_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Options for {@link launch}. */
export interface LaunchOptions {
  /** Expose WebGPU (SwiftShader's software adapter in headless Chromium); otherwise the GPU is off. */
  webgpu?: boolean;
  /** An unpacked extension folder to load. */
  extension?: string;
  /** Extra URL prefixes that count as local (e.g. `chrome-extension://<id>/`). */
  allow?: readonly string[];
}

/** A launched context plus what it recorded. */
export interface Launched {
  readonly context: BrowserContext;
  /** Requests to anywhere but 127.0.0.1 (and allowed prefixes). Must stay empty. */
  readonly external: string[];
  /** Console errors and uncaught page errors, for failure messages. */
  readonly errors: string[];
  /** A page with error capture attached. */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Whether `url` stays on this machine: 127.0.0.1 over http(s), or an inline/blob/extension URL. */
export function isLocal(url: string, allow: readonly string[] = []): boolean {
  if (allow.some((prefix) => url.startsWith(prefix))) return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'data:' || parsed.protocol === 'blob:') return true;
  return (
    (parsed.protocol === 'http:' || parsed.protocol === 'https:' || parsed.protocol === 'ws:') &&
    parsed.hostname === '127.0.0.1'
  );
}

/**
 * Chromium's id for an unpacked extension: the SHA-256 of its absolute path, first 32 hex
 * digits mapped 0-f → a-p.
 *
 * @example
 * extensionId('/work/main/examples/extension/dist') // 32 letters a–p
 */
export function extensionId(folder: string): string {
  const hex = createHash('sha256').update(resolve(folder)).digest('hex').slice(0, 32);
  return [...hex].map((digit) => String.fromCharCode(97 + Number.parseInt(digit, 16))).join('');
}

/**
 * Launch Chromium with a fresh temporary profile.
 *
 * @example
 * const browser = await launch()
 * const page = await browser.newPage()
 * await page.goto(server.url)
 * expect(browser.external).toEqual([])
 * await browser.close()
 */
export async function launch(options: LaunchOptions = {}): Promise<Launched> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'loopctl-e2e-'));
  const args = [...BASE_ARGS];
  // --enable-unsafe-webgpu exposes SwiftShader's fallback adapter; without it there is none.
  if (options.webgpu) args.push('--enable-unsafe-webgpu');
  else args.push('--disable-gpu');
  if (options.extension) {
    const folder = resolve(options.extension);
    args.push(`--disable-extensions-except=${folder}`, `--load-extension=${folder}`);
  }
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args,
    viewport: { width: 1320, height: 1000 },
  });
  const external: string[] = [];
  const errors: string[] = [];
  const allow = options.allow ?? [];
  context.on('request', (request) => {
    if (!isLocal(request.url(), allow)) external.push(request.url());
  });
  const watch = (page: Page): Page => {
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    return page;
  };
  context.on('page', watch);
  return {
    context,
    external,
    errors,
    newPage: async () => context.pages()[0] ?? (await context.newPage()),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The demo state as the page's hook exposes it (a structural subset, for assertions). */
export interface HookState {
  phase: string;
  error?: string;
  crossOriginIsolated: boolean;
  backend?: { device: 'wasm' | 'webgpu'; numThreads?: number; fallbackReason?: string; loadMs: number };
  corpus?: {
    source: 'shipped' | 'idb' | 'embedded' | 'memory';
    corpusEmbeds: number;
    seeded: number;
    warnings: string[];
    cacheHits: number;
    tools: number;
    ms: number;
  };
  registry: { count: number; label: string };
  results: {
    id: string;
    names: string[];
    ranked: { name: string; score?: number; matched?: string[] }[];
    fellOpen?: string;
    ms: number;
  }[];
  selections: number;
}

/** Wait for `window.__loopctl.ready` and return the state (throws with the page's error). */
export async function waitReady(page: Page, timeout = 90_000): Promise<HookState> {
  await page.waitForFunction(() => '__loopctl' in window, undefined, { timeout });
  return page.evaluate(async () => {
    const hook = (window as unknown as { __loopctl: { ready: Promise<unknown>; state: unknown } }).__loopctl;
    await hook.ready;
    // Structured clone drops nothing the tests read; JSON keeps it plain.
    return JSON.parse(JSON.stringify(hook.state));
  }) as Promise<HookState>;
}

/** Read the current state. */
export async function readState(page: Page): Promise<HookState> {
  return page.evaluate(() =>
    JSON.parse(JSON.stringify((window as unknown as { __loopctl: { state: unknown } }).__loopctl.state)),
  ) as Promise<HookState>;
}
