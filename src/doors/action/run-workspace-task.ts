import { isEveryActionRefused } from "../../core/agent-run.js";
import { discoverWorkspaceRepository } from "../../core/git/index.js";
import { realpath } from "node:fs/promises";
import path from "node:path";
import { createRuntime } from "../../core/runtime/index.js";
import type { ActionContext } from "./action-context.js";
import { buildRuntimeEnvironment } from "./action-secrets.js";
import { findPersistedCredentials } from "./find-persisted-credentials.js";
import { reportRun } from "./report-run.js";
import { createStepLog } from "./create-step-log.js";

/**
 * `run` mode: the harness on the checked-out workspace with the prompt, no pull request. The
 * workflow decides what happens to the changes (a later step may commit them or upload a patch).
 */
export async function runWorkspaceTask(context: ActionContext, prompt: string): Promise<number> {
  const { inputs, environment, dependencies } = context;
  const { io } = dependencies;
  let workspaceRoot: string;
  try {
    workspaceRoot = await realpath(environment.workspace);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown";
    io.error(
      `The workspace ${environment.workspace} cannot be used (${code}); add an actions/checkout step first.`,
    );
    return 1;
  }
  const stored = await findPersistedCredentials(workspaceRoot);
  if (stored !== null) {
    io.error(
      `The checkout keeps a credential in .git/config (${stored}), where commands the agent runs could read it. Set \`persist-credentials: false\` on actions/checkout.`,
    );
    return 1;
  }
  // The runner's checkout keeps its git directory inside it: every sandbox shows it read-only.
  const discovered = await discoverWorkspaceRepository(workspaceRoot);
  const runtime = await createRuntime({
    env: buildRuntimeEnvironment(inputs, dependencies.env, path.join(context.outputDir, "data")),
    ...(inputs.maxTurns === undefined ? {} : { maxTurns: inputs.maxTurns }),
    secrets: context.secrets,
    stream: false,
    ...(dependencies.model ? { model: dependencies.model } : {}),
    log: (message) => io.warning(message),
  });
  if (runtime.sandboxKind === "none")
    io.warning("AGENTFORGE_SANDBOX=none: commands run without the bubblewrap sandbox.");
  const stepLog = createStepLog(io, (text) => context.redactor.redact(text));
  try {
    const result = await runtime.runner.run(
      {
        prompt,
        workspaceRoot,
        readOnlyPaths: discovered.kind === "repository" ? discovered.repository.sandboxReadOnlyPaths : [],
        mode: "build",
        // Nobody can answer a question in a workflow: only allow-listed commands run.
        approvalMode: "never",
        allowPrefixes: inputs.allowedCommands,
        ...(inputs.maxTurns === undefined ? {} : { maxTurns: inputs.maxTurns }),
        tracePath: context.tracePath,
        signal: dependencies.signal,
      },
      { onEvent: stepLog.onEvent },
    );
    stepLog.flush();
    const isDone = result.exitReason === "final_answer";
    await reportRun(context, {
      result: result.exitReason,
      headline: isDone ? "run finished" : `run stopped (${result.exitReason})`,
      details: [
        result.finalAnswer ?? "",
        result.errorMessage ? `**Error:** ${result.errorMessage}` : "",
        result.filesChanged.length > 0
          ? `**Files changed:** ${result.filesChanged.map((file) => `\`${file}\``).join(", ")}`
          : "",
      ]
        .filter((part) => part !== "")
        .join("\n\n"),
      tracePath: result.tracePath ?? context.tracePath,
      usage: { turns: result.turns, totalTokens: result.usage.totalTokens, costUsd: result.costUsd },
    });
    if (!isDone) {
      io.error(
        `The run ended with ${result.exitReason}${result.errorMessage ? `: ${result.errorMessage}` : ""}`,
      );
      return 1;
    }
    // A final answer after every action was refused did nothing: the step fails and says why.
    if (isEveryActionRefused(result.actions)) {
      io.error(
        `Every action the model tried was refused (${result.actions.refused} of ${result.actions.attempted}); nothing was changed or run. Add the commands it needs to "allowed-commands".`,
      );
      return 1;
    }
    return 0;
  } finally {
    await runtime.close();
  }
}
