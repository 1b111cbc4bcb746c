/**
 * A light suffix stemmer for English tool vocabulary: plurals and common verb endings fold
 * together ("files" → "file", "creating" and "created" → "creat") so a query and a
 * description that use different forms of a word still meet. Deliberately conservative:
 * words of four letters or fewer are left alone and nothing is cut below three letters.
 *
 * @example
 * stem('directories') === stem('directory') // true
 * stem('uploaded') === stem('uploads')      // true
 */
export function stem(word: string): string {
  if (word.length <= 4) return word;
  let base = word;
  if (base.endsWith('ies')) base = `${base.slice(0, -3)}y`;
  else if (base.endsWith('sses')) base = base.slice(0, -2);
  else if (/(?:x|z|ch|sh)es$/.test(base)) base = base.slice(0, -2);
  else if (base.endsWith('s') && !/(?:ss|us|is)$/.test(base)) base = base.slice(0, -1);
  else if (base.endsWith('ing') && base.length >= 6) base = undouble(base.slice(0, -3));
  else if (base.endsWith('ed') && base.length >= 5) base = undouble(base.slice(0, -2));
  if (base.endsWith('e') && base.length > 4) base = base.slice(0, -1);
  return base.length >= 3 ? base : word;
}

// "stopped" → "stopp" → "stop"; "called" keeps its "ll".
function undouble(base: string): string {
  return /([bdgmnprt])\1$/.test(base) ? base.slice(0, -1) : base;
}
