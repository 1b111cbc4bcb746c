import type { ToolSchema } from '../registry/schema.js';
import type { SelectionContext, SelectorOutput, ToolSelector } from './selector.js';

/**
 * Advertises every tool, or a fixed named subset: "no selection" as an explicit knob.
 * Names that are not registered are ignored.
 *
 * @example
 * loop.withToolSelector(new StaticSelector())                      // every tool
 * loop.withToolSelector(new StaticSelector(['read_file', 'grep']))  // a fixed subset
 */
export class StaticSelector implements ToolSelector {
  readonly name = 'static';
  readonly #names: ReadonlySet<string> | undefined;

  constructor(names?: readonly string[]) {
    this.#names = names ? new Set(names) : undefined;
  }

  /**
   * Every tool, or the named ones, in registry order.
   *
   * @example
   * new StaticSelector(['grep']).select(ctx, registry.schemas()).tools // [grep's schema]
   */
  select(_ctx: SelectionContext, all: readonly ToolSchema[]): SelectorOutput {
    const names = this.#names;
    return { tools: names ? all.filter((tool) => names.has(tool.name)) : all };
  }
}
