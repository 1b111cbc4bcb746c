/**
 * Runs in Node before the workerd tests: starts the scripted model (and its control
 * endpoint) on loopback and hands the URLs to the pool config and the tests via `provide`.
 */
import type { TestProject } from 'vitest/node';
import { startModelFixture } from '../worker/model-fixture.js';
import { startUpstreamFixture } from '../proxy/upstream-fixture.js';

declare module 'vitest' {
  export interface ProvidedContext {
    modelBaseURL: string;
    modelControlURL: string;
    deadBaseURL: string;
    proxyOpenAIBaseURL: string;
    proxyAnthropicBaseURL: string;
    proxyControlURL: string;
    proxyDeadURL: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const model = await startModelFixture();
  project.provide('modelBaseURL', model.baseURL);
  project.provide('modelControlURL', model.controlURL);
  project.provide('deadBaseURL', model.deadBaseURL);
  // The selecting proxy's upstream (test/workers/proxy*.test.ts).
  const upstream = await startUpstreamFixture();
  project.provide('proxyOpenAIBaseURL', upstream.openAIBaseURL);
  project.provide('proxyAnthropicBaseURL', upstream.anthropicBaseURL);
  project.provide('proxyControlURL', upstream.controlURL);
  project.provide('proxyDeadURL', upstream.deadURL);
  return async () => {
    await model.close();
    await upstream.close();
  };
}
