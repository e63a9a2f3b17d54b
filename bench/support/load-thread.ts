import { parentPort, workerData } from "node:worker_threads";
import { sendOpenLoopLoad } from "./send-open-loop-load.js";
import type { LoadRequest } from "./send-load-in-thread.js";
import { sendWebhookLoad } from "./send-webhook-load.js";

// The entry of the thread `sendLoadInThread` starts: the sender, off the thread of the server it measures.
const request = workerData as LoadRequest;
const result =
  request.kind === "open-loop"
    ? await sendOpenLoopLoad(request.options)
    : await sendWebhookLoad(request.options);
parentPort?.postMessage(result);
