/**
 * What the demo chat says when a run fails: a model server that does not answer is named by
 * the URL the page tried, with what to do, instead of the browser's bare "Failed to fetch".
 */
import { describe, expect, it } from 'vitest';
import { chatFailure } from '../../public/chat-failure.js';

const page = 'http://127.0.0.1:8787';

describe('chatFailure', () => {
  it('a network failure names the URL tried and says what to do', () => {
    const text = chatFailure(
      { code: 'ModelNetworkError', message: 'openai request failed: Failed to fetch' },
      'http://127.0.0.1:11434/v1',
      page,
    );
    expect(text).toContain('http://127.0.0.1:11434/v1/chat/completions');
    expect(text).toContain('Failed to fetch');
    expect(text).toMatch(/start an OpenAI-compatible model server there/i);
    expect(text).toContain('ollama serve');
    expect(text).toContain('Base URL');
    // A browser says "Failed to fetch" for a server that refuses this page's origin too.
    expect(text).toContain(`OLLAMA_ORIGINS=${page}`);
  });

  it('an HTTP 404 points at the model name and the base URL', () => {
    const text = chatFailure(
      { code: 'http_404', message: "openai HTTP 404: model 'qwen3:4b' not found" },
      'http://127.0.0.1:11434/v1',
      page,
    );
    expect(text).toContain("model 'qwen3:4b' not found");
    expect(text).toContain('http://127.0.0.1:11434/v1/chat/completions');
    expect(text).toMatch(/check the Model name/);
  });

  it('a 401 asks for the API key', () => {
    const text = chatFailure({ code: 'http_401', message: 'openai HTTP 401: bad key' }, 'https://api.test/v1', page);
    expect(text).toMatch(/API key/);
  });

  it('any other error is shown as it came', () => {
    expect(chatFailure({ code: 'ModelStreamError', message: 'stream interrupted' }, 'https://api.test/v1', page)).toBe(
      'error: stream interrupted',
    );
  });
});
