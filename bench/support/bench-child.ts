/**
 * Runs one bench file in its own process, so a crash, a leaked handle or a hang in one bench
 * cannot take the others down. Usage (from the runner): `node --import tsx bench-child.ts FILE`.
 * The rows go back over the IPC channel; stdout stays free for whatever the bench prints.
 */
import { pathToFileURL } from "node:url";

export type ChildMessage =
  | { readonly type: "rows"; readonly rows: unknown }
  | { readonly type: "error"; readonly message: string; readonly stack: string };

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.send === undefined) {
      reject(new Error("bench-child must be started with an IPC channel"));
      return;
    }
    process.send(message, undefined, {}, (error) => (error === null ? resolve() : reject(error)));
  });
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (file === undefined) throw new Error("usage: bench-child.ts BENCH_FILE");
  const module = (await import(pathToFileURL(file).href)) as { run?: unknown };
  if (typeof module.run !== "function") throw new Error(`${file} does not export a run function`);
  const rows: unknown = await (module.run as () => Promise<unknown>)();
  await send({ type: "rows", rows });
}

try {
  await main();
  process.exitCode = 0;
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  const stack = error instanceof Error ? (error.stack ?? message) : message;
  await send({ type: "error", message, stack });
  process.exitCode = 1;
}
// A bench that leaves a server or timer behind must not keep its process (and the run) alive.
process.exit();
