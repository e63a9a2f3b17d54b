import { mkdir, mkdtemp } from "node:fs/promises";
import path from "node:path";
import type { ActionEnvironment } from "./action-environment.js";

/** Where one step keeps its files. */
export interface StepFolder {
  /** This step's own folder: trace, HTML report and the run's data. Made empty for it. */
  readonly outputDir: string;
  readonly tracePath: string;
  /**
   * `${RUNNER_TEMP}/agentforge/cache`, shared on purpose by every AgentForge step of the job: the
   * repository mirrors it holds are fetched again before each checkout, each checkout gets a
   * fresh workspace, and the steps of a job run one after another.
   */
  readonly cacheDir: string;
}

/**
 * Makes a fresh folder for this step under `${RUNNER_TEMP}/agentforge/`, named after the step and
 * the run attempt (`agentforge-attempt-1-Xy12Ab`). A second AgentForge step of the same job, or a
 * re-run on a runner that keeps RUNNER_TEMP, gets a folder of its own, so no step reports a trace
 * another one wrote.
 */
export async function createStepFolder(
  environment: Pick<ActionEnvironment, "runnerTemp" | "stepId" | "runAttempt">,
): Promise<StepFolder> {
  const root = path.join(environment.runnerTemp, "agentforge");
  await mkdir(root, { recursive: true, mode: 0o700 });
  const step = (environment.stepId ?? "step").replace(/[^A-Za-z0-9_.-]+/g, "_").replace(/^[._]+/, "");
  const outputDir = await mkdtemp(
    path.join(root, `${step === "" ? "step" : step}-attempt-${environment.runAttempt ?? "1"}-`),
  );
  return { outputDir, tracePath: path.join(outputDir, "trace.jsonl"), cacheDir: path.join(root, "cache") };
}
