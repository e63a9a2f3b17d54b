import type { ExitReason } from "../loop/loop-events.js";
import type { EvalExpectations } from "./eval-task-schema.js";
import type { PathSnapshot } from "./snapshot-paths.js";

/** What was measured about one run; the judge reads nothing else, so it is pure and repeatable. */
export interface EvalObservation {
  readonly exitReason: ExitReason;
  readonly finalAnswer: string | null;
  readonly errorTypesSeen: readonly string[];
  readonly eventTypesSeen: readonly string[];
  readonly toolsRefused: readonly string[];
  /** Command lines of refused calls; a `tool_refused` entry may name one instead of a tool. */
  readonly commandsRefused?: readonly string[];
  readonly filesChanged: readonly string[];
  /** Snapshots of each `files_unchanged` path before and after the run. */
  readonly unchanged: readonly {
    readonly path: string;
    readonly before: PathSnapshot;
    readonly after: PathSnapshot;
  }[];
  /** The `command_passes` run, when the task has one. */
  readonly command?: {
    readonly exitCode: number | null;
    readonly timedOut: boolean;
    readonly output: string;
  };
}

/** Every expectation that does not hold, in words; an empty list means the task passed. */
export function judgeEvalRun(expect: EvalExpectations, observed: EvalObservation): string[] {
  const failures: string[] = [];
  if (expect.exit_reason !== undefined && observed.exitReason !== expect.exit_reason)
    failures.push(`exit_reason was ${observed.exitReason}, expected ${expect.exit_reason}`);
  for (const text of expect.final_answer_contains ?? []) {
    if (observed.finalAnswer === null) {
      failures.push(`final answer missing (expected it to contain ${JSON.stringify(text)})`);
      break;
    }
    if (!observed.finalAnswer.includes(text))
      failures.push(`final answer does not contain ${JSON.stringify(text)}`);
  }
  failures.push(...missing("error type", expect.error_types_seen, observed.errorTypesSeen));
  failures.push(...missing("event", expect.event_types_seen, observed.eventTypesSeen));
  failures.push(
    ...missing("refusal of", expect.tool_refused, [
      ...observed.toolsRefused,
      ...(observed.commandsRefused ?? []),
    ]),
  );
  if (expect.files_changed !== undefined) {
    const expected = new Set(expect.files_changed);
    const actual = new Set(observed.filesChanged);
    const absent = [...expected].filter((file) => !actual.has(file));
    const extra = [...actual].filter((file) => !expected.has(file));
    if (absent.length > 0) failures.push(`files not changed: ${absent.join(", ")}`);
    if (extra.length > 0) failures.push(`unexpected files changed: ${extra.join(", ")}`);
  }
  for (const entry of observed.unchanged) failures.push(...compareSnapshots(entry));
  if (expect.command_passes !== undefined) {
    const command = observed.command;
    if (command === undefined) failures.push(`\`${expect.command_passes}\` was not run`);
    else if (command.timedOut) failures.push(`\`${expect.command_passes}\` timed out`);
    else if (command.exitCode !== 0)
      failures.push(
        `\`${expect.command_passes}\` exited ${command.exitCode ?? "by signal"}${tail(command.output)}`,
      );
  }
  return failures;
}

function missing(label: string, expected: readonly string[] | undefined, seen: readonly string[]): string[] {
  const present = new Set(seen);
  return (expected ?? [])
    .filter((item) => !present.has(item))
    .map(
      (item) => `${label} ${item} not seen${seen.length > 0 ? ` (seen: ${[...present].join(", ")})` : ""}`,
    );
}

function compareSnapshots(entry: EvalObservation["unchanged"][number]): string[] {
  if (entry.before === null) return [`files_unchanged: ${entry.path} is not in the fixture`];
  if (entry.after === null) return [`${entry.path} was deleted`];
  const changed: string[] = [];
  for (const [file, digest] of Object.entries(entry.before)) {
    const now = entry.after[file];
    if (now === undefined) changed.push(`${file} deleted`);
    else if (now !== digest) changed.push(`${file} modified`);
  }
  for (const file of Object.keys(entry.after))
    if (entry.before[file] === undefined) changed.push(`${file} added`);
  return changed.length === 0 ? [] : [`${entry.path} changed: ${changed.join(", ")}`];
}

/** The last line of the command's output, so a failure says why without a second look. */
function tail(output: string): string {
  const lines = output.trim().split("\n");
  const last = lines[lines.length - 1]?.trim();
  return last ? `: ${last.slice(0, 200)}` : "";
}
