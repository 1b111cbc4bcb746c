/**
 * Runs in Node before the workerd tests: starts the scripted model (and its control
 * endpoint) on loopback and hands the URLs to the pool config and the tests via `provide`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { DEMO_TOOLS } from '../../demo/demo-tools.js';
import { buildVectorsFile } from '../../src/embed/vectors-build.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import { startUpstreamFixture } from '../proxy/upstream-fixture.js';
import { startModelFixture } from '../worker/model-fixture.js';
import { ASSET_EMBEDDER_ID } from './constants.js';
import { startMcpUpstreams } from './mcp-upstreams.js';

declare module 'vitest' {
  export interface ProvidedContext {
    modelBaseURL: string;
    modelControlURL: string;
    deadBaseURL: string;
    assetsDir: string;
    proxyOpenAIBaseURL: string;
    proxyAnthropicBaseURL: string;
    proxyControlURL: string;
    proxyDeadURL: string;
    mcpNotesURL: string;
    mcpGarbageURL: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const model = await startModelFixture();
  project.provide('modelBaseURL', model.baseURL);
  project.provide('modelControlURL', model.controlURL);
  project.provide('deadBaseURL', model.deadBaseURL);
  // A static-assets folder holding a vectors file for the demo registry, as the demo build
  // ships one (built here with the counting embedder the workerd tests use).
  const assetsDir = mkdtempSync(join(tmpdir(), 'loopctl-workers-assets-'));
  mkdirSync(join(assetsDir, 'vectors'));
  writeFileSync(
    join(assetsDir, 'vectors', 'demo.lcv'),
    await buildVectorsFile(countingEmbedder({ id: ASSET_EMBEDDER_ID }), DEMO_TOOLS),
  );
  project.provide('assetsDir', assetsDir);
  // The selecting proxy's upstream (test/workers/proxy*.test.ts).
  const upstream = await startUpstreamFixture();
  project.provide('proxyOpenAIBaseURL', upstream.openAIBaseURL);
  project.provide('proxyAnthropicBaseURL', upstream.anthropicBaseURL);
  project.provide('proxyControlURL', upstream.controlURL);
  project.provide('proxyDeadURL', upstream.deadURL);
  // The MCP gateway's upstreams (test/workers/mcp-gateway.test.ts).
  const mcp = await startMcpUpstreams();
  project.provide('mcpNotesURL', mcp.notesURL);
  project.provide('mcpGarbageURL', mcp.garbageURL);
  return async () => {
    await mcp.close();
    await model.close();
    await upstream.close();
    rmSync(assetsDir, { recursive: true, force: true });
  };
}
