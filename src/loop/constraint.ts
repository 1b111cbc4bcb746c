/**
 * How the model may call tools. `Strict` limits the model's calls to what is advertised this
 * turn: only those schemas go on the wire, and a call to a registered but unadvertised tool
 * is not dispatched (its result says the tool was not offered this turn).
 *
 * @example
 * new BareLoop({ client, registry, config: { constraint: ToolConstraint.Strict } })
 */
export const ToolConstraint = {
  Auto: 'auto',
  Required: 'required',
  None: 'none',
  Strict: 'strict',
} as const;

export type ToolConstraint = (typeof ToolConstraint)[keyof typeof ToolConstraint];

/** Every constraint name, for validating input. */
export const TOOL_CONSTRAINTS: readonly ToolConstraint[] = Object.values(ToolConstraint);
