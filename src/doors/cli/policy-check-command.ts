import { isApprovalMode } from "../../core/policy/index.js";
import { runPolicyCheck } from "../../core/policy/index.js";
import { EXIT_CODES, type CliIo } from "./cli-io.js";

/** `agentforge policy check [--approval MODE] [--allow PREFIX]... -- COMMAND...` */
export async function policyCheckCommand(
  command: readonly string[],
  options: { approval: string; allow: string[] },
  io: CliIo,
): Promise<number> {
  if (!isApprovalMode(options.approval)) {
    io.stderr(`agentforge policy check: unknown approval mode "${options.approval}"\n`);
    return EXIT_CODES.usage;
  }
  const result = await runPolicyCheck({
    command,
    approvalMode: options.approval,
    allowPrefixes: options.allow,
  });
  io.stdout(`${JSON.stringify(result.json, null, 2)}\n`);
  return result.exitCode;
}
