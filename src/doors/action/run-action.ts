import { readFile } from "node:fs/promises";
import { RuntimeError } from "../../core/runtime/index.js";
import { createRedactor } from "../../core/safety/index.js";
import type { ActionContext, ActionDependencies } from "./action-context.js";
import { readActionEnvironment } from "./action-environment.js";
import { readActionInputs } from "./action-inputs.js";
import { collectActionSecrets } from "./action-secrets.js";
import { createStepFolder } from "./create-step-folder.js";
import { deriveActionPlan } from "./derive-action-plan.js";
import { reportRun } from "./report-run.js";
import { runGitHubActionJob } from "./run-github-action-job.js";
import { runWorkspaceTask } from "./run-workspace-task.js";

/**
 * The Action's one entry: parse the step (inputs, runner variables, event), decide the job, run
 * it through the same core as every door, and report. Returns the process exit code; every
 * failure is explained in one log line that names what to fix.
 */
export async function runAction(dependencies: ActionDependencies): Promise<number> {
  const { env, io } = dependencies;
  const inputs = readActionInputs(env);
  if (!inputs.success) {
    io.error(inputs.error);
    return 1;
  }
  const secrets = collectActionSecrets(inputs.value, env);
  for (const secret of secrets) io.setSecret(secret);
  const environment = readActionEnvironment(env);
  if (!environment.success) {
    io.error(environment.error);
    return 1;
  }
  if (inputs.value.approval !== "never") {
    io.warning(
      `input "approval" is "${inputs.value.approval}", but the Action always runs with approval "never": there is nobody to ask, so only allow-listed commands run. Add commands with "allowed-commands".`,
    );
  }
  const payload = await readEventPayload(environment.value.eventPath);
  if (!payload.success) {
    io.error(payload.error);
    return 1;
  }
  const plan = deriveActionPlan(inputs.value, {
    name: environment.value.eventName,
    payload: payload.value,
    owner: environment.value.owner,
    repo: environment.value.repo,
  });
  if (!plan.success) {
    io.error(plan.error);
    return 1;
  }
  const folder = await createStepFolder(environment.value);
  const context: ActionContext = {
    inputs: inputs.value,
    environment: environment.value,
    dependencies,
    secrets,
    redactor: createRedactor({ secrets }),
    ...folder,
  };
  const value = plan.value;
  try {
    switch (value.kind) {
      case "skip":
        await reportRun(context, { result: "skipped", headline: `skipped: ${value.reason}` });
        return 0;
      case "run":
        return await runWorkspaceTask(context, value.prompt);
      case "reply":
      case "job":
        return await runGitHubActionJob(context, value);
    }
  } catch (error) {
    // Configuration problems are the operator's to fix and need no stack; anything else is a bug.
    const message =
      error instanceof RuntimeError
        ? error.message
        : error instanceof Error
          ? `${error.message}${error.stack ? `\n${error.stack}` : ""}`
          : String(error);
    io.error(context.redactor.redact(message));
    return 1;
  }
}

type PayloadResult =
  { readonly success: true; readonly value: unknown } | { readonly success: false; readonly error: string };

async function readEventPayload(eventPath: string | undefined): Promise<PayloadResult> {
  // A local run without an event (workflow_dispatch from `act`, tests) has an empty payload.
  if (eventPath === undefined) return { success: true, value: {} };
  let text: string;
  try {
    text = await readFile(eventPath, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown";
    return { success: false, error: `GITHUB_EVENT_PATH ${eventPath} cannot be read (${code})` };
  }
  try {
    return { success: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return {
      success: false,
      error: `GITHUB_EVENT_PATH ${eventPath} is not JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}
