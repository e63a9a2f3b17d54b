import type { CommandOutcome } from "../tool.js";

/** What the model reads: exit status first, then both streams, each labelled even when empty. */
export function formatCommandOutput(outcome: CommandOutcome): string {
  const status =
    outcome.exitCode !== null
      ? `exit code: ${outcome.exitCode}`
      : `killed by signal: ${outcome.signal ?? "unknown"}`;
  const lines = [status];
  if (outcome.timedOut) lines.push("timed out: yes");
  if (outcome.outputTruncated) lines.push("output truncated: yes (the middle of a long output was left out)");
  lines.push("stdout:", outcome.stdout === "" ? "(empty)" : outcome.stdout.replace(/\n$/, ""));
  lines.push("stderr:", outcome.stderr === "" ? "(empty)" : outcome.stderr.replace(/\n$/, ""));
  return lines.join("\n");
}
