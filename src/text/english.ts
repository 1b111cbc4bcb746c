/**
 * English with its rule tables loaded: the default of every rule that reads a lexicon
 * synchronously (`requestAction`, `splitClauses`, `handleInputs`…). Modules that import it
 * load with those rules, never with the core.
 */
import { english } from './english-lexicon.js';
import { englishRules } from './english-rules.js';
import type { LoadedLexicon } from './lexicon.js';

const { rules: _rules, ...core } = english;

/**
 * English, loaded: what `loadLexicon(english)` resolves to, ready at import.
 *
 * @example
 * requestAction('email him the details', englishLoaded) // 'send'
 */
export const englishLoaded: LoadedLexicon = { ...core, ...englishRules };
