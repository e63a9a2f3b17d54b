import { existsSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { mergeBudgetLimits } from "../../../src/doors/github-app/budgets/read-budget-limits.js";
import { createInstallationBudgets } from "../../../src/doors/github-app/budgets/create-installation-budgets.js";
import { createSqliteBudgetStore } from "../../../src/doors/github-app/budgets/create-sqlite-budget-store.js";
import { parseOperatorConfig } from "../../../src/core/config/load-operator-config.js";
import type { MockStep } from "../../../src/mock-model/mock-script.js";
import type { OperatorKeyCase } from "./operator-key-case.js";
import {
  runWithOperatorConfig,
  toolMessagesSeen,
  type OperatorRunOptions,
} from "./run-with-operator-config.js";

const done: MockStep = { type: "text", text: "done" };
const shell = (command: string): MockStep => ({
  type: "tool_calls",
  calls: [{ name: "shell", arguments: { command } }],
});

async function shellSees(
  config: Record<string, unknown>,
  command: string,
  options: Partial<OperatorRunOptions> = {},
): Promise<string> {
  const run = await runWithOperatorConfig({ config, steps: [shell(command), done], ...options });
  return toolMessagesSeen(run)[0] ?? "";
}

/** What the App's budgets say of an installation that has used 100 tokens, $1 and one task slot. */
async function installationVerdict(config: Record<string, unknown>): Promise<string> {
  const parsed = parseOperatorConfig(config, null);
  if (!parsed.success) throw new Error(parsed.error);
  const directory = await mkdtemp(path.join(os.tmpdir(), "agentforge-operator-budgets-"));
  const store = createSqliteBudgetStore(path.join(directory, "budgets.sqlite"));
  try {
    const budgets = createInstallationBudgets({
      store,
      limits: mergeBudgetLimits(parsed.value.installation_budgets, {}),
    });
    await budgets.record(1, { tokens: 100, costUsd: 1 });
    await budgets.startTask(1, "running-task");
    const verdict = await budgets.startTask(1, "next-task");
    return verdict.allowed ? "allowed" : verdict.reason;
  } finally {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  }
}

const hookWrites = (tools: string[]) => ({
  hooks: { after_tool: [{ tools, command: "echo hooked > hook.txt" }] },
});
const writeThenFinish: MockStep[] = [
  { type: "tool_calls", calls: [{ name: "write_file", arguments: { path: "a.txt", content: "x\n" } }] },
  done,
];

export const sandboxAndAgentKeyCases: readonly OperatorKeyCase[] = [
  {
    keys: ["sandbox", "sandbox.kind"],
    title: "sandbox.kind none runs commands in the harness's own namespaces",
    baseline: { sandbox: { kind: "bwrap" } },
    changed: { sandbox: { kind: "none" } },
    observe: async (config) =>
      (await shellSees(config, "readlink /proc/self/ns/pid")).includes(readlinkSync("/proc/self/ns/pid")),
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["sandbox.env_allowlist"],
    title: "sandbox.env_allowlist passes the named variables to commands",
    baseline: {},
    changed: { sandbox: { env_allowlist: ["OPERATOR_PROBE"] } },
    observe: async (config) =>
      (
        await shellSees(config, "printenv OPERATOR_PROBE || echo unset", {
          env: { OPERATOR_PROBE: "passed-in" },
        })
      ).includes("passed-in"),
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["sandbox.command_timeout_ms"],
    title: "sandbox.command_timeout_ms stops a command that runs too long",
    baseline: { allowed_commands: ["sleep"] },
    changed: { allowed_commands: ["sleep"], sandbox: { command_timeout_ms: 300 } },
    // The word is put together by printf, so the command's own text (echoed in the result) never holds it.
    observe: async (config) =>
      (await shellSees(config, "sleep 1.5; printf '%s%s\\n' fini shed")).includes("finished"),
    expected: { baseline: true, changed: false },
  },
  {
    keys: ["sandbox.max_output_bytes"],
    title: "sandbox.max_output_bytes caps what a command's output keeps",
    baseline: {},
    changed: { sandbox: { max_output_bytes: 2_000 } },
    observe: async (config) =>
      (await shellSees(config, "head -c 30000 /dev/zero | tr '\\0' a")).length > 20_000,
    expected: { baseline: true, changed: false },
  },
  {
    keys: ["allowed_commands"],
    title: "allowed_commands lets a run that asks nobody run those commands",
    baseline: {},
    changed: { allowed_commands: ["touch"] },
    observe: async (config) => {
      const run = await runWithOperatorConfig({
        config,
        steps: [shell("touch made.txt"), done],
        inspect: (workspace) => existsSync(path.join(workspace, "made.txt")),
      });
      return run.inspected;
    },
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["hooks", "hooks.after_tool", "hooks.after_tool[].command"],
    title: "hooks.after_tool runs its command after a matching tool succeeds",
    baseline: {},
    changed: hookWrites(["write_file"]),
    observe: async (config) =>
      (
        await runWithOperatorConfig({
          config,
          steps: writeThenFinish,
          inspect: (workspace) => existsSync(path.join(workspace, "hook.txt")),
        })
      ).inspected,
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["hooks.after_tool[].tools"],
    title: "hooks.after_tool.tools names the tools the hook follows",
    baseline: hookWrites(["edit_file"]),
    changed: hookWrites(["write_file"]),
    observe: async (config) =>
      (
        await runWithOperatorConfig({
          config,
          steps: writeThenFinish,
          inspect: (workspace) => existsSync(path.join(workspace, "hook.txt")),
        })
      ).inspected,
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["installation_budgets", "installation_budgets.tokens_per_day"],
    title: "installation_budgets.tokens_per_day refuses a task once the day's tokens are used",
    baseline: {},
    changed: { installation_budgets: { tokens_per_day: 50 } },
    observe: installationVerdict,
    expected: { baseline: "allowed", changed: "tokens-per-day" },
  },
  {
    keys: ["installation_budgets.cost_usd_per_day"],
    title: "installation_budgets.cost_usd_per_day refuses a task once the day's money is spent",
    baseline: {},
    changed: { installation_budgets: { cost_usd_per_day: 0.5 } },
    observe: installationVerdict,
    expected: { baseline: "allowed", changed: "cost-per-day" },
  },
  {
    keys: ["installation_budgets.concurrent_tasks"],
    title: "installation_budgets.concurrent_tasks refuses a task beyond that many at once",
    baseline: {},
    changed: { installation_budgets: { concurrent_tasks: 1 } },
    observe: installationVerdict,
    expected: { baseline: "allowed", changed: "concurrent-tasks" },
  },
];
