/**
 * One operator key (or a few read together) and the behaviour it changes: the same observation is
 * made under two configs that differ only in that key, and each must show what the case says.
 */
export interface OperatorKeyCase {
  /** Dotted schema paths this case proves; `*` stands for a record's entry, `[]` for a list item. */
  readonly keys: readonly string[];
  readonly title: string;
  readonly baseline: Record<string, unknown>;
  readonly changed: Record<string, unknown>;
  /** Runs something under the config and reports what was seen, as plain data. */
  readonly observe: (config: Record<string, unknown>) => Promise<unknown>;
  /** What `observe` reports under each config (compared with toMatchObject / toEqual). */
  readonly expected: { readonly baseline: unknown; readonly changed: unknown };
}
