/**
 * `npm run bench:big-prompt`'s upstream, in a process of its own so that its read and parse of
 * the 8 MiB body it is forwarded are not counted against the proxy: the recording upstream
 * fixture, keeping only its latest few requests. Sends `{ openAIBaseURL, anthropicBaseURL }`
 * once it listens and exits when the parent disconnects.
 */
import { startUpstreamFixture } from './upstream-fixture.js';

if (!process.send) throw new Error('big-prompt-upstream-child: start it with fork()');
const upstream = await startUpstreamFixture({ keepRequests: 4 });
process.send({ openAIBaseURL: upstream.openAIBaseURL, anthropicBaseURL: upstream.anthropicBaseURL });
process.once('disconnect', () => {
  void upstream.close();
});
