/**
 * The defaults of tool links, in one place: how many prerequisites a turn may add, how many
 * providers an input keeps, and the weight of each piece of evidence that a tool produces an
 * input (chosen on the dev splits and the project's dev registry; see docs/tuning-whole-task.md).
 */

/**
 * The defaults.
 *
 * @example
 * const room = k + LINK_DEFAULTS.budget // most tools a turn advertises with its prerequisites
 */
export const LINK_DEFAULTS = {
  budget: 2,
  /** Providers kept per input. */
  maxProviders: 3,
  /** A provider is kept when its evidence is at least this share of the best one's. */
  relative: 0.75,
  /** Least lexical evidence for a provider. */
  minEvidence: 0.9,
  /** Weight of the tools' cosine in a provider's evidence. */
  denseWeight: 0.5,
  /** How deep the walk goes: a prerequisite's own prerequisites, and no further. */
  depth: 2,
  /** The lexical evidence that a tool produces an input: each piece's weight, summed. */
  evidence: {
    /** The input's own description names the tool outright ("Mailbox message ID from search_email"). */
    named: 2,
    /** A sibling's description names it (a tool of the same object taking a parameter of the same name). */
    sibling: 1.5,
    /** A word the description points with ("obtained from the authenticate method") is in its name. */
    hinted: 1,
    /** The entity is its name's object (`get_user_tickets` for a ticket). */
    object: 0.6,
    /** The entity is another word of its name. */
    inName: 0.4,
    /** Its name lists many of the entity (`list_tasks`). */
    lists: 0.2,
    /** Its name holds the input's handle word (`ticker`), or the entity and "id". */
    handleInName: 0.5,
    /** Its name finds what exists (search, list…). */
    finds: 0.4,
    /** Its name fetches one thing (get, view…). */
    fetches: 0.2,
    /** Its description holds the entity. */
    inDescription: 0.3,
    /** Its description names this entity's handle ("returns task IDs"). */
    namesHandle: 0.4,
    /** Its description names some handle. */
    mentionsHandle: 0.2,
  },
} as const;
