/**
 * What the chat panel shows when a run ends in an error. The browser's own words for a server
 * that is not there ("Failed to fetch") name neither the URL nor a fix, so a model server that
 * does not answer, a wrong model name and a refused key each get the URL the page tried and
 * what to do.
 */

/**
 * The chat's line for a run's `error` event, given the base URL the run used and the page's
 * origin (a browser reports a server that refuses the page's origin as "Failed to fetch" too).
 *
 * @example
 * chatFailure({ code: 'ModelNetworkError', message: 'openai request failed: Failed to fetch' },
 *   'http://127.0.0.1:11434/v1', location.origin)
 * // 'No model server answered at http://127.0.0.1:11434/v1/chat/completions (…). Start …'
 */
export function chatFailure(error: { code: string; message: string }, baseURL: string, pageOrigin: string): string {
  const url = `${baseURL.replace(/\/+$/, '')}/chat/completions`;
  if (error.code === 'ModelNetworkError') {
    return (
      `No model server answered at ${url} (${error.message}). ` +
      'Start an OpenAI-compatible model server there (with Ollama: ollama serve, then ollama pull qwen3:4b), ' +
      `or enter your server's Base URL above, including /v1. If it is running, it may refuse this page's ` +
      `origin (CORS): with Ollama, start it with OLLAMA_ORIGINS=${pageOrigin}.`
    );
  }
  if (error.code === 'http_404') {
    return `${error.message} (from ${url}): check the Model name (with Ollama, ollama pull it first) and the Base URL, which includes /v1.`;
  }
  if (error.code === 'http_401' || error.code === 'http_403') {
    return `${error.message} (from ${url}): check the API key for this server.`;
  }
  return `error: ${error.message}`;
}
