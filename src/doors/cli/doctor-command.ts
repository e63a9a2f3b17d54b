import { runDoctorChecks } from "../../core/runtime/index.js";
import { adviseContainerSandbox } from "./advise-container-sandbox.js";
import { EXIT_CODES, type CliIo } from "./cli-io.js";
import { readContainerFacts, type ContainerFacts } from "./detect-container.js";
import { probeContainerSandbox } from "./probe-container-sandbox.js";
import { loadDotEnv } from "./serve-command.js";

/**
 * `agentforge doctor [--json]`: the machine and the model, then the App's credentials and Redis,
 * read from the same environment (and `.env`) `serve` reads. Exit 0 when nothing is a problem
 * (warnings are allowed). Inside a container, a sandbox problem's fix names the `docker run` flags.
 */
export async function doctorCommand(
  options: { json?: boolean },
  io: CliIo,
  readContainer: () => ContainerFacts = readContainerFacts,
): Promise<number> {
  loadDotEnv(io.env);
  // The App door owns probot; the CLI only asks it for its checks.
  const { runAppDoctorChecks } = await import("../github-app/start-app-server.js");
  const [core, app] = await Promise.all([runDoctorChecks(io.env), runAppDoctorChecks(io.env)]);
  const checks = adviseContainerSandbox(
    [...core, ...app],
    await probeContainerSandbox(io.env, readContainer),
  );
  if (options.json) io.stdout(`${JSON.stringify({ checks }, null, 2)}\n`);
  else {
    for (const check of checks) {
      const mark = check.status === "ok" ? "ok  " : check.status === "warning" ? "warn" : "FAIL";
      io.stdout(`${mark} ${check.name}: ${check.detail}\n`);
      if (check.fix && check.status !== "ok") io.stdout(`     fix: ${check.fix}\n`);
    }
  }
  return checks.some((check) => check.status === "problem") ? EXIT_CODES.failure : EXIT_CODES.ok;
}
