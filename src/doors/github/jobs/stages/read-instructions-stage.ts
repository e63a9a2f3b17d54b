import { readInstructionsFromGitRef } from "../../../../core/skills/index.js";
import type { JobReport } from "../github-job.js";
import type { JobWorkspace } from "../prepare-job-workspace.js";

/**
 * AGENTS.md as the base commit has it, never as the checked-out head does (a pull request must not
 * instruct the agent). Missing or unreadable is noted and the job goes on without it.
 */
export async function readInstructionsStage(
  workspace: Pick<JobWorkspace, "repository" | "baseSha">,
  report: Pick<JobReport, "log">,
): Promise<string | null> {
  return readInstructionsFromGitRef(workspace.repository, workspace.baseSha).catch((error: unknown) => {
    report.log?.("AGENTS.md not read", { error: error instanceof Error ? error.message : String(error) });
    return null;
  });
}
