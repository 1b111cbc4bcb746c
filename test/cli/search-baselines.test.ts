/**
 * The eval's baselines: the AI SDK default search as reimplemented for the reachable-recall
 * table must rank exactly as the real `ai` 7.0.173 `toolSearch()` does (run through
 * generateText against the scripted server), and the regex reference builds the pattern a
 * hosted regex search accepts.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool, toolSearch } from 'ai';
import { describe, expect, it } from 'vitest';
import { evaluateReachable, searchMethods } from '../../src/cli/evaluate-reachable.js';
import { aiSdkKeywordSearch, regexPatternFor, regexReferenceSearch } from '../../src/cli/search-baselines.js';
import { Bm25Selector } from '../../src/select/bm25-selector.js';
import { StaticSelector } from '../../src/select/static-selector.js';
import { body, useScriptedServer } from '../loop/helpers.js';
import { wideToolSet } from '../support/wide-tool-set.js';

const server = useScriptedServer();
const tools = wideToolSet();
const QUERIES = [
  'create a new jira issue for the login bug',
  'what is the weather in Oslo',
  'list invoices of a Stripe customer',
  'delete a HubSpot contact',
  'send an SMS message through Twilio',
  'getWeather forecast',
];

describe('aiSdkKeywordSearch', () => {
  it('ranks as the real ai toolSearch() default does, query by query', async () => {
    const model = createOpenAI({ baseURL: server.current.openAIBaseURL, apiKey: 'sk-test' }).chat('scripted');
    const sdkTools = Object.fromEntries(
      tools.map((t) => [
        t.name,
        tool({
          description: t.description,
          inputSchema: jsonSchema(t.parameters as never),
          deferLoading: true,
          execute: async () => 'ok',
        }),
      ]),
    );
    for (const [i, query] of QUERIES.entries()) {
      server.current.enqueue(
        { toolCalls: [{ id: `q${i}`, name: 'toolSearch', arguments: { query } }] },
        { text: 'ok' },
      );
      await generateText({
        model,
        tools: { toolSearch: toolSearch(), ...sdkTools },
        stopWhen: stepCountIs(2),
        prompt: query,
        maxRetries: 0,
      });
      const request = server.current.requests[server.current.requests.length - 1];
      const result = body(request).messages.find((m: { role: string }) => m.role === 'tool');
      const found = (JSON.parse(result.content) as { tools: { name: string }[] }).tools.map((t) => t.name);
      expect(aiSdkKeywordSearch(query, tools, 5), query).toEqual(found);
    }
  });
});

describe('the regex reference', () => {
  it('writes the content words as one alternation within 200 characters and ranks by words matched', () => {
    expect(regexPatternFor('Please send an email to Kim about the budget')).toBe('send|email|kim|budget');
    expect(regexPatternFor('word '.repeat(10) + 'x'.repeat(300)).length).toBeLessThanOrEqual(200);
    expect(regexReferenceSearch('list invoices of a Stripe customer', tools, 1)).toEqual(['stripe_list_invoice']);
  });
});

describe('evaluateReachable', () => {
  it('counts a case reachable when loaded ∪ one search covers it, with the same loaded set for every method', async () => {
    const cases = [
      { id: 'a', query: 'list invoices of a Stripe customer', expected: ['stripe_list_invoice'] },
      { id: 'b', query: 'delete a HubSpot contact', expected: ['hubspot_delete_contact', 'stripe_list_invoice'] },
    ];
    const { rows, loadedOnly, meanLoaded } = await evaluateReachable(
      new StaticSelector(['stripe_list_invoice']),
      searchMethods(new Bm25Selector()),
      tools,
      cases,
      5,
    );
    expect(meanLoaded).toBe(1);
    expect(loadedOnly).toBe(0.5);
    const bm25 = rows.find((row) => row.method === 'bm25');
    expect(bm25).toEqual({ method: 'bm25', cases: 2, searchOnly: 0.5, reachable: 1 });
    expect(rows.map((row) => row.method)).toEqual(['ai-sdk keyword', 'regex reference', 'bm25', 'loopctl bm25']);
  });
});
