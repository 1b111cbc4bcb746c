/**
 * Issue 49 on Deno: with `PROXY_LEARN=on`, what the proxy learns from traffic is kept in
 * `PROXY_LEARN_DIR` through Deno's own file API and survives a restart, as on Node. A real
 * `Deno.serve`, the scripted upstream over loopback, a conversation in which the model called a
 * tool and it succeeded; then a fresh handler on the same folder lists the example. Run from the
 * repo root:
 *
 *   npx deno test --config test/deno/deno.json --allow-net --allow-read --allow-write --allow-env --allow-sys=hostname --cached-only --no-check --unstable-no-legacy-abort test/deno/learned-restart.test.ts
 */
import { denoHandler } from '../../src/hono/index.js';
import { ToolRegistry } from '../../src/index.js';
import { startUpstreamFixture } from '../proxy/upstream-fixture.js';

const KEY = 'sk-deno-learn-tenant';

const TOOLS = [
  ['get_weather', 'Get the current weather for a city'],
  ['send_sms', 'Send a text message to a phone number'],
  ['create_invoice', 'Create an invoice for a customer'],
  ['list_calendar_events', 'List the events in a calendar between two dates'],
  ['search_flights', 'Search for flights between two airports on a date'],
].map(([name, description]) => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties: {} } },
}));

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

Deno.test({
  name: 'learned traffic survives a restart on Deno (PROXY_LEARN_DIR)',
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const upstream = await startUpstreamFixture();
    const folder = await Deno.makeTempDir({ prefix: 'loopctl-deno-learn-' });
    const vars = {
      PROXY_AUTH: 'passthrough',
      PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL,
      PROXY_LEARN: 'on',
      PROXY_LEARN_DIR: folder,
      PROXY_SELECTOR: 'keyword',
    };
    const start = () =>
      Deno.serve(
        { port: 0, hostname: '127.0.0.1', onListen: () => {} },
        denoHandler({ vars, registry: new ToolRegistry(), onError: () => undefined }),
      );
    const learned = async (base: string) => {
      const response = await fetch(`${base}/v1/learned`, { headers: { authorization: `Bearer ${KEY}` } });
      assert(response.status === 200, `GET /v1/learned answered ${response.status}`);
      return (await response.json()) as { count: number; examples: { query: string; tools: string[] }[] };
    };
    let server = start();
    try {
      const base = `http://127.0.0.1:${server.addr.port}`;
      const messages = [
        { role: 'user', content: 'Text my landlord that the rent is paid' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'send_sms', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"sent": true}' },
      ];
      const response = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages, tools: TOOLS }),
      });
      const answer = await response.text();
      assert(response.status === 200, `the proxy answered ${response.status}: ${answer}`);
      // Examples are recorded after the answer: wait for the write.
      let before = await learned(base);
      for (let attempt = 0; attempt < 100 && before.count === 0; attempt++) {
        await new Promise((done) => setTimeout(done, 20));
        before = await learned(base);
      }
      assert(before.count === 1, `one example learned, got ${before.count}`);
      assert(before.examples[0]?.tools.join() === 'send_sms', `learned ${JSON.stringify(before.examples)}`);
      const files = [...Deno.readDirSync(folder)].map((entry) => entry.name);
      assert(files.length === 1 && /^[0-9a-f]+\.json$/.test(files[0] ?? ''), `files kept: ${files.join(', ')}`);

      // A restart: a new server and handler on the same folder.
      await server.shutdown();
      server = start();
      const after = await learned(`http://127.0.0.1:${server.addr.port}`);
      assert(after.count === 1, `after a restart, ${after.count} examples`);
      assert(after.examples[0]?.query === before.examples[0]?.query, 'the same example after a restart');
    } finally {
      await server.shutdown();
      await upstream.close();
      await Deno.remove(folder, { recursive: true });
    }
  },
});
