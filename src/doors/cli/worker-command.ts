import type { CliIo } from "./cli-io.js";
import { serveCommand } from "./serve-command.js";

/** `agentforge worker`: runs queued tasks only; needs REDIS_URL so intake can run elsewhere. */
export function workerCommand(io: CliIo): Promise<number> {
  return serveCommand(io, "worker");
}
