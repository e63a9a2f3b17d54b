/**
 * Time to first action (issue 17, item 4): a signed `@agentforge fix this` to the model's first
 * request on a warm repository, split into its steps, with serve running the task on SQLite and
 * with serve and a worker process on Redis. See bench/support/measure-first-action.ts.
 */
import { pathToFileURL } from "node:url";
import type { Benchmark } from "./bench-types.js";
import { measureFirstAction } from "./support/measure-first-action.js";

export const run: Benchmark = async () => [
  ...(await measureFirstAction("sqlite")),
  ...(await measureFirstAction("redis")),
];

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await run()) console.log(JSON.stringify(row));
}
