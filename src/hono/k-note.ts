/**
 * What `/v1/select` says when a request's `k` does not apply to its selector: plain `keyword`,
 * `static` and the adaptive selectors decide how many tools to advertise themselves, so a `k`
 * the caller sent would otherwise be dropped without a word.
 */

// How each built-in selector that ignores k decides its size; other names get the generic line.
const HOW: Readonly<Record<string, string>> = {
  keyword: 'it advertises every tool whose words match the prompt (keyword-ranked takes k)',
  static: 'it advertises every registered tool',
  'embedding-adaptive': 'it advertises 3 to 16 tools, cut where the scores drop (embedding takes k)',
  'hybrid-adaptive': 'it advertises 3 to 16 tools, cut where the scores drop (hybrid takes k)',
};

/**
 * The note for a `k` that `selector` does not take.
 *
 * @example
 * kNote('keyword') // 'k does not apply to keyword: it advertises every tool whose words match the prompt (keyword-ranked takes k)'
 */
export function kNote(selector: string): string {
  return `k does not apply to ${selector}: ${Object.hasOwn(HOW, selector) ? HOW[selector] : 'it decides how many tools to advertise itself'}`;
}
