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
  /** How deep the walk goes: a prerequisite's own prerequisites, and no further. */
  depth: 2,
  /** The lexical evidence that a tool produces an input: each piece's weight, summed. */
  evidence: {
    /** The input's own description names the tool outright ("Mailbox message ID from search_email"). */
    named: 2,
    /** The entity is its name's object (`get_user_tickets` for a ticket). */
    object: 0.6,
    /** The entity is another word of its name. */
    inName: 0.4,
    /** Its name lists many of the entity (`list_tasks`). */
    lists: 0.2,
    /** Its name finds what exists (search, list…). */
    finds: 0.4,
    /** Its description holds the entity. */
    inDescription: 0.3,
  },
} as const;
