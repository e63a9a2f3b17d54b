import { expect } from "@jest/globals";
import type { OperatorKeyCase } from "./operator-key-case.js";

/** The same observation under both configs: each must show what the case expects. */
export async function runOperatorKeyCase(entry: OperatorKeyCase): Promise<void> {
  expect(await entry.observe(entry.baseline)).toEqual(entry.expected.baseline);
  expect(await entry.observe(entry.changed)).toEqual(entry.expected.changed);
}

export const caseRows = (cases: readonly OperatorKeyCase[]) =>
  cases.map((entry) => [entry.title, entry] as const);
