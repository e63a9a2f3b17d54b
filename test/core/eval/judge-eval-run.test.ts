import { describe, expect, it } from "@jest/globals";
import { judgeEvalRun, type EvalObservation } from "../../../src/core/eval/judge-eval-run.js";

const base: EvalObservation = {
  exitReason: "final_answer",
  finalAnswer: "Fixed add() in src/math.js; node test.js passes.",
  errorTypesSeen: ["FILE_NOT_FOUND"],
  eventTypesSeen: ["turn-start", "tool-call-refused"],
  toolsRefused: ["shell"],
  filesChanged: ["src/math.js"],
  unchanged: [],
};

describe("judgeEvalRun", () => {
  it("passes a run that meets every kind of expectation", () => {
    const failures = judgeEvalRun(
      {
        exit_reason: "final_answer",
        final_answer_contains: ["src/math.js", "passes"],
        error_types_seen: ["FILE_NOT_FOUND"],
        event_types_seen: ["tool-call-refused"],
        tool_refused: ["shell"],
        files_changed: ["src/math.js"],
        files_unchanged: ["test.js"],
        command_passes: "node test.js",
      },
      {
        ...base,
        unchanged: [{ path: "test.js", before: { "test.js": "abc" }, after: { "test.js": "abc" } }],
        command: { exitCode: 0, timedOut: false, output: "ok" },
      },
    );
    expect(failures).toEqual([]);
  });

  it("names a wrong exit reason", () => {
    expect(judgeEvalRun({ exit_reason: "max_turns" }, base)).toEqual([
      "exit_reason was final_answer, expected max_turns",
    ]);
  });

  it("names each missing text of the final answer, case-sensitively", () => {
    expect(judgeEvalRun({ final_answer_contains: ["PASSES", "math"] }, base)).toEqual([
      'final answer does not contain "PASSES"',
    ]);
    expect(judgeEvalRun({ final_answer_contains: ["x"] }, { ...base, finalAnswer: null })).toEqual([
      'final answer missing (expected it to contain "x")',
    ]);
  });

  it("fails on an error type, event or refusal that never happened, listing what was seen", () => {
    const failures = judgeEvalRun(
      {
        error_types_seen: ["EDIT_NO_MATCH"],
        event_types_seen: ["context-compacted"],
        tool_refused: ["write_file"],
      },
      base,
    );
    expect(failures).toEqual([
      "error type EDIT_NO_MATCH not seen (seen: FILE_NOT_FOUND)",
      "event context-compacted not seen (seen: turn-start, tool-call-refused)",
      "refusal of write_file not seen (seen: shell)",
    ]);
  });

  it("accepts a refused command line in place of a tool name", () => {
    const observed = { ...base, commandsRefused: ["git status; rm -rf src"] };
    expect(judgeEvalRun({ tool_refused: ["git status; rm -rf src", "shell"] }, observed)).toEqual([]);
    expect(judgeEvalRun({ tool_refused: ["rm -rf /"] }, observed)).toEqual([
      "refusal of rm -rf / not seen (seen: shell, git status; rm -rf src)",
    ]);
  });

  it("treats files_changed as an exact set", () => {
    expect(judgeEvalRun({ files_changed: ["src/math.js"] }, base)).toEqual([]);
    expect(judgeEvalRun({ files_changed: [] }, base)).toEqual(["unexpected files changed: src/math.js"]);
    expect(judgeEvalRun({ files_changed: ["src/math.js", "README.md"] }, base)).toEqual([
      "files not changed: README.md",
    ]);
  });

  it("reports every modified, deleted or added file under an unchanged path", () => {
    const failures = judgeEvalRun(
      { files_unchanged: ["src", "gone.txt", "typo.js"] },
      {
        ...base,
        unchanged: [
          {
            path: "src",
            before: { src: "directory", "src/a.js": "1", "src/b.js": "2" },
            after: { src: "directory", "src/a.js": "9", "src/c.js": "3" },
          },
          { path: "gone.txt", before: { "gone.txt": "1" }, after: null },
          { path: "typo.js", before: null, after: null },
        ],
      },
    );
    expect(failures).toEqual([
      "src changed: src/a.js modified, src/b.js deleted, src/c.js added",
      "gone.txt was deleted",
      "files_unchanged: typo.js is not in the fixture",
    ]);
  });

  it("fails a command that exits non-zero, times out or never ran", () => {
    const expectation = { command_passes: "node test.js" };
    expect(
      judgeEvalRun(expectation, {
        ...base,
        command: { exitCode: 1, timedOut: false, output: "FAIL add(2, 3): expected 5, got -1\n" },
      }),
    ).toEqual(["`node test.js` exited 1: FAIL add(2, 3): expected 5, got -1"]);
    expect(
      judgeEvalRun(expectation, { ...base, command: { exitCode: null, timedOut: true, output: "" } }),
    ).toEqual(["`node test.js` timed out"]);
    expect(judgeEvalRun(expectation, base)).toEqual(["`node test.js` was not run"]);
  });
});
