/**
 * Tool links: the tools a tool needs first. A tool whose required input is a handle a prompt
 * rarely spells out (`task_id`, `email_id`, a `ticker`, "the ID of the event") can only be
 * called after a tool that finds, lists or searches that entity, so a selection that holds the
 * one should hold the other. Links are inferred once per registry list (generation) from tool
 * names, parameter names and descriptions and tool descriptions (lexical evidence, read with the
 * lexicon), ranked with the tools' own embedding vectors when there are some (dense evidence);
 * a user may declare them instead. No model is asked. Loaded with the first selection that uses
 * them.
 *
 * The door to its parts, one concept each: `handle-inputs.ts` (which inputs are handles),
 * `provider-evidence.ts` (how strongly a tool produces one, with the weights named in
 * `link-defaults.ts`), `provider-candidates.ts` (which tools to score, over the shared
 * inverted index), `infer-tool-links.ts` (every link of a list), `declared-links.ts` and
 * `prerequisites.ts` (what a selection adds).
 */
export type { HandleInput } from './handle-inputs.js';
export { handleInputs } from './handle-inputs.js';
export { inferToolLinks } from './infer-tool-links.js';
export { LINK_DEFAULTS } from './link-defaults.js';
export type { IndexedLink, ToolLink, ToolLinkOptions, ToolLinks, ToolVectors } from './link-types.js';
export type { Prerequisites } from './prerequisites.js';
export { prerequisitesFor } from './prerequisites.js';
