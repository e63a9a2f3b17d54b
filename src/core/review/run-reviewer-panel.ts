import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { addCostUsd, readCostUsd, type CostUsd } from "../model/cost-usd.js";
import type { ModelClient } from "../model/model-types.js";
import { createPolicyApprovalGate } from "../policy/create-policy-approval-gate.js";
import { createFence } from "../safety/create-fence.js";
import { createRedactor } from "../safety/create-redactor.js";
import { createContentSafety } from "../session/create-content-safety.js";
import { createSubagentTools, runSubagentsInParallel, type SubagentDefinition } from "../subagents/index.js";
import { createFileTools } from "../tools/files/create-file-tools.js";
import { createShellTool } from "../tools/shell/create-shell-tool.js";
import type { CommandRunner } from "../tools/tool.js";
import type { Finding } from "./finding.js";
import { parseReviewerFindings } from "./parse-reviewer-findings.js";

const OUTPUT_CONTRACT = [
  "Reply with ONLY a JSON array (no prose before or after it) of findings, each an object:",
  '{"path": "src/file.ts", "line": 12, "start_line": 10 (optional, first line of a range), "side": "RIGHT" (or "LEFT" for a removed line),',
  '"severity": "critical" | "high" | "medium" | "low", "category": "correctness" | "security" | "tests" | ..., "title": "one line",',
  '"body": "what is wrong, why it matters, how to fix it", "suggestion": "replacement text for the lines (optional)"}.',
  "Lines are line numbers of the file after the change (new side) unless side is LEFT. Report only real problems in the changed code;",
  "reply [] when you find none. You are read-only: you cannot change files or run anything but read-only commands.",
].join(" ");

/** The three reviewers of a pull request, run side by side, each with one concern. */
export const REVIEWERS: readonly SubagentDefinition[] = [
  {
    name: "correctness_reviewer",
    description: "Reviews a diff for wrong logic, unhandled errors and broken edge cases.",
    instructions: `You review code changes for correctness: wrong logic, off-by-one errors, unhandled errors and edge cases, broken contracts with callers. Read the surrounding code before you judge. ${OUTPUT_CONTRACT}`,
  },
  {
    name: "security_reviewer",
    description: "Reviews a diff for security problems.",
    instructions: `You review code changes for security: injection, path traversal, unsafe deserialisation, secrets in code, missing authorization or validation of outside input. ${OUTPUT_CONTRACT}`,
  },
  {
    name: "tests_reviewer",
    description: "Reviews whether a diff is tested.",
    instructions: `You review code changes for tests: behaviour changed without a test, tests that cannot fail, missing failure and edge cases. Find the project's tests first. ${OUTPUT_CONTRACT}`,
  },
];

export interface ReviewerPanelOptions {
  readonly model: ModelClient;
  readonly commandRunner: CommandRunner;
  readonly workspaceRoot: string;
  readonly signal: AbortSignal;
  readonly redact: (text: string) => string;
  /** The diff the reviewers read (on synchronize, only the new commits). */
  readonly diff: string;
  readonly description: string;
  /** Where the diff comes from, named in its fence (e.g. `github:pull-request diff`). */
  readonly diffSource: string;
  readonly maxTurns?: number;
}

export interface ReviewerPanelResult {
  readonly findings: readonly Finding[];
  /** What went wrong with a reviewer (no JSON, a timeout); it goes into the review body. */
  readonly notes: readonly string[];
  readonly totalTokens: number;
  /** Null when a reviewer's cost is unknown. */
  readonly costUsd: CostUsd;
}

const MAX_DIFF_CHARS = 60_000;

function numberAt(record: Readonly<Record<string, unknown>> | undefined, key: string): number {
  const value = record?.[key];
  return typeof value === "number" ? value : 0;
}

/**
 * Runs the reviewers as read-only subagents over the checkout. The diff is someone's code: it
 * reaches them fenced as data. Their answers are redacted before they are parsed, so nothing a
 * reviewer quotes can carry a secret into a comment.
 */
export async function runReviewerPanel(options: ReviewerPanelOptions): Promise<ReviewerPanelResult> {
  const scratchDir = await mkdtemp(path.join(os.tmpdir(), "agentforge-review-"));
  try {
    const fence = createFence();
    const redactor = createRedactor();
    const safety = createContentSafety({ redactor, fence, scratchDir });
    const tools = createSubagentTools({
      model: options.model,
      baseTools: [...createFileTools(), createShellTool()],
      createApprovalGate: (gate) =>
        createPolicyApprovalGate({ ...gate, workspaceRoot: options.workspaceRoot }),
      safety,
      fencingInstructions: fence.fencingInstructions(),
      definitions: REVIEWERS,
      concurrency: REVIEWERS.length,
      ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
    });
    const diff =
      options.diff.length > MAX_DIFF_CHARS
        ? `${options.diff.slice(0, MAX_DIFF_CHARS)}\n…(diff cut; read the files for the rest)`
        : options.diff;
    const goal = `Review this change. ${options.description}\n\n${fence.wrap(diff, options.diffSource)}`;
    const results = await runSubagentsInParallel(
      tools.map((tool) => ({ tool, goal })),
      {
        workspaceRoot: options.workspaceRoot,
        scratchDir,
        signal: options.signal,
        runId: `review-${path.basename(scratchDir)}`,
        commandRunner: options.commandRunner,
      },
      { redact: options.redact },
    );
    const findings: Finding[] = [];
    const notes: string[] = [];
    let totalTokens = 0;
    let costUsd: CostUsd = 0;
    results.forEach((result, index) => {
      const name = REVIEWERS[index]?.name ?? `reviewer ${index}`;
      const usage = result.metadata?.["usage"] as Readonly<Record<string, unknown>> | undefined;
      totalTokens += numberAt(usage, "totalTokens");
      costUsd = addCostUsd(costUsd, readCostUsd(result.metadata?.["costUsd"]));
      if (!result.ok) {
        notes.push(`${name} did not finish (${result.error?.error_type ?? result.status}).`);
        return;
      }
      const parsed = parseReviewerFindings(result.output);
      if (!parsed.success) {
        notes.push(`${name}'s answer was not a list of findings and was left out.`);
        return;
      }
      findings.push(...parsed.value);
      if (parsed.skipped > 0)
        notes.push(`${parsed.skipped} malformed finding(s) from ${name} were left out.`);
    });
    return { findings, notes, totalTokens, costUsd };
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
}
