import { runDoctorChecks } from "../../core/runtime/index.js";
import { EXIT_CODES, type CliIo } from "./cli-io.js";

/** `agentforge doctor [--json]`: exit 0 when nothing is a problem (warnings are allowed). */
export async function doctorCommand(options: { json?: boolean }, io: CliIo): Promise<number> {
  const checks = await runDoctorChecks(io.env);
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
