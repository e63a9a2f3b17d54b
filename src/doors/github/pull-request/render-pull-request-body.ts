import type { ExitReason } from "../../../core/loop/index.js";
import { neutralizeMarkdown } from "../review/render-review-text.js";
import type { CommittedFile, LeftOutFile } from "../workspace/select-commit-files.js";
import { formatCostUsd } from "../../../core/model/index.js";

export interface CommandRecord {
  readonly command: string;
  readonly ok: boolean;
  readonly exitCode: number | null;
}

export interface FileChange {
  readonly path: string;
  readonly additions?: number;
  readonly deletions?: number;
}

export interface PullRequestBodyOptions {
  /** What changed and why, from the run's final answer. */
  readonly summary: string;
  readonly plan?: string;
  readonly filesChanged: readonly (string | FileChange)[];
  /** What the commit holds (from the commit itself); listed instead of `filesChanged` when given. */
  readonly committedFiles?: readonly CommittedFile[];
  /** What the commit does not hold, with the reason. */
  readonly leftOut?: readonly LeftOutFile[];
  /** Every command the agent ran. */
  readonly commands: readonly CommandRecord[];
  /** The repository's test commands, run after the agent finished. */
  readonly tests?: readonly CommandRecord[];
  readonly tokens: { readonly input: number; readonly output: number } | number;
  readonly costUsd: number | null;
  readonly issueNumber: number;
  readonly exitReason: ExitReason;
  /** One line, e.g. "12 turns, 31 tool calls, 4 m 10 s". */
  readonly traceSummary?: string;
}

export function issueMarker(issueNumber: number): string {
  return `<!-- agentforge:issue=${issueNumber} -->`;
}

/** A code span that the text cannot end early, whatever backticks it holds. */
function codeSpan(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ");
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

function renderCommands(commands: readonly CommandRecord[]): string {
  return commands
    .map((record) => {
      const exit = record.exitCode === null ? "no exit code" : `exit ${record.exitCode}`;
      return `- ${record.ok ? "✅" : "❌"} ${codeSpan(record.command)} (${exit})`;
    })
    .join("\n");
}

function renderFile(change: string | FileChange): string {
  if (typeof change === "string") return `- ${codeSpan(change)}`;
  const counts = change.additions === undefined ? "" : ` (+${change.additions} −${change.deletions ?? 0})`;
  return `- ${codeSpan(change.path)}${counts}`;
}

/**
 * Whether merging may close the issue: only when the run ended with an answer and the
 * repository's tests ran and passed. Otherwise the pull request only refers to the issue, so a
 * partial fix merged in a hurry leaves it open for a person to judge.
 */
export function closingDecision(options: Pick<PullRequestBodyOptions, "exitReason" | "tests">): {
  closes: boolean;
  reason: string;
} {
  if (options.exitReason !== "final_answer") {
    return { closes: false, reason: `the run ended with \`${options.exitReason}\`, not a final answer` };
  }
  const tests = options.tests ?? [];
  if (tests.length === 0)
    return {
      closes: false,
      reason: "the repository configures no `test_commands` to run after the agent and confirm the fix",
    };
  if (tests.some((test) => !test.ok)) return { closes: false, reason: "a test command failed" };
  return { closes: true, reason: "the tests passed" };
}

/** The repository's test commands when it has some; else what the agent's own commands showed. */
function renderTests(tests: readonly CommandRecord[], commands: readonly CommandRecord[]): string {
  if (tests.length > 0) return renderCommands(tests);
  const intro = "_The repository configures no `test_commands`, so nothing ran after the agent._";
  if (commands.length === 0) return `${intro} The agent ran no command either.`;
  return `${intro} The agent's last run of each command:\n\n${renderCommands(commands)}`;
}

/** The pull request description: what and why, the plan, what ran, what it cost, and the issue link. */
export function renderPullRequestBody(options: PullRequestBodyOptions): string {
  const sections: string[] = [];
  sections.push(`## Summary\n\n${neutralizeMarkdown(options.summary.trim() || "(no summary given)")}`);
  if (options.plan !== undefined && options.plan.trim().length > 0) {
    sections.push(
      `<details><summary>Plan</summary>\n\n${neutralizeMarkdown(options.plan.trim())}\n\n</details>`,
    );
  }
  const files =
    options.committedFiles !== undefined
      ? options.committedFiles.map(
          (file) =>
            `- ${codeSpan(file.path)}${file.changedBy === "agent" ? "" : " (changed by a command the agent ran)"}`,
        )
      : options.filesChanged.map(renderFile);
  sections.push(`## Files changed\n\n${files.length === 0 ? "_none_" : files.join("\n")}`);
  const leftOut = options.leftOut ?? [];
  if (leftOut.length > 0)
    sections.push(
      `## Left out of the commit\n\n${leftOut.map((file) => `- ${codeSpan(file.path)}: ${file.reason}`).join("\n")}`,
    );
  sections.push(`## Tests\n\n${renderTests(options.tests ?? [], options.commands)}`);
  if (options.commands.length > 0) {
    sections.push(
      `<details><summary>Commands run (${options.commands.length})</summary>\n\n${renderCommands(options.commands)}\n\n</details>`,
    );
  }
  const tokens =
    typeof options.tokens === "number"
      ? `${options.tokens.toLocaleString("en-US")} tokens`
      : `${(options.tokens.input + options.tokens.output).toLocaleString("en-US")} tokens (${options.tokens.input.toLocaleString("en-US")} in, ${options.tokens.output.toLocaleString("en-US")} out)`;
  const cost = formatCostUsd(options.costUsd);
  const trace = options.traceSummary === undefined ? "" : ` · ${neutralizeMarkdown(options.traceSummary)}`;
  sections.push(`## Run\n\n${tokens} · ${cost} · ended with \`${options.exitReason}\`${trace}`);
  const decision = closingDecision(options);
  sections.push(
    decision.closes
      ? `Fixes #${options.issueNumber}`
      : `Refs #${options.issueNumber} — not marked as fixing it because ${decision.reason}.`,
  );
  sections.push(issueMarker(options.issueNumber));
  return sections.join("\n\n");
}
