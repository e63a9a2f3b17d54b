import { Worker } from "node:worker_threads";
import type { OpenLoopOptions, OpenLoopResult } from "./send-open-loop-load.js";
import type { LoadOptions, LoadResult } from "./send-webhook-load.js";

export type LoadRequest =
  | { readonly kind: "open-loop"; readonly options: OpenLoopOptions }
  | { readonly kind: "closed-loop"; readonly options: LoadOptions };

/**
 * Runs a load generator on a thread of its own, as if from another machine: a server that answers on
 * the bench's main thread (bare Probot, our triage) would otherwise share its event loop with the
 * sender, and a server on a thread of its own would not: the comparison would favour the latter.
 */
export function sendLoadInThread(request: {
  kind: "open-loop";
  options: OpenLoopOptions;
}): Promise<OpenLoopResult>;
export function sendLoadInThread(request: { kind: "closed-loop"; options: LoadOptions }): Promise<LoadResult>;
export function sendLoadInThread(request: LoadRequest): Promise<OpenLoopResult | LoadResult> {
  // Node 20 does not pass the bench's tsx on to a worker: the thread registers it, then loads its entry.
  const entry = new URL("./load-thread.ts", import.meta.url).href;
  const bootstrap = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  const worker = new Worker(bootstrap, { eval: true, workerData: request });
  return new Promise((resolve, reject) => {
    worker.once("message", (result: OpenLoopResult | LoadResult) => resolve(result));
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (code !== 0) reject(new Error(`the load thread exited with code ${code}`));
    });
  });
}
