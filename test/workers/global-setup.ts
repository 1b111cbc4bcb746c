/**
 * Runs in Node before the workerd tests: starts the scripted model (and its control
 * endpoint) on loopback and hands the URLs to the pool config and the tests via `provide`.
 */
import type { TestProject } from 'vitest/node';
import { startModelFixture } from '../worker/model-fixture.js';

declare module 'vitest' {
  export interface ProvidedContext {
    modelBaseURL: string;
    modelControlURL: string;
    deadBaseURL: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const model = await startModelFixture();
  project.provide('modelBaseURL', model.baseURL);
  project.provide('modelControlURL', model.controlURL);
  project.provide('deadBaseURL', model.deadBaseURL);
  return () => model.close();
}
