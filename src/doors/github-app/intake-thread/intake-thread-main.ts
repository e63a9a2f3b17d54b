import { parentPort, workerData } from "node:worker_threads";
import type { IntakeThreadSettings } from "./intake-thread-messages.js";
import { runIntakeThread } from "./run-intake-thread.js";

// The entry of the intake thread `startWebhookIntake` starts; never imported. A failure to start
// (the journal cannot be read, the port is taken) rejects this module, which the main thread
// sees as the worker's `error` event.
if (parentPort === null) throw new Error("intake-thread-main runs as a worker thread only");
await runIntakeThread(workerData as IntakeThreadSettings, parentPort);
