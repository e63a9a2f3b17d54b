import { describe, expect, it } from "@jest/globals";
import { createRunId, validateId } from "../../../src/core/persistence/validate-id.js";
import { runPaths } from "../../../src/core/persistence/run-paths.js";
import { PersistenceError } from "../../../src/core/persistence/persistence-error.js";

describe("validateId", () => {
  it.each(["run-1", "20250101T000000000Z-abcdef012345", "a", "A.b_c-d", "x".repeat(128)])(
    "accepts %j",
    (id) => {
      expect(validateId(id)).toEqual({ success: true, value: id });
    },
  );

  it.each([
    ["empty", ""],
    ["parent", ".."],
    ["parent prefix", "../etc"],
    ["nested parent", "a/../../b"],
    ["double dot inside", "a..b"],
    ["slash", "a/b"],
    ["absolute", "/etc/passwd"],
    ["backslash", "a\\b"],
    ["leading dot", ".hidden"],
    ["leading dash", "-rf"],
    ["too long", "x".repeat(129)],
    ["unicode", "rún"],
    ["fullwidth dot", "a\uFF0E\uFF0Eb"],
    ["nul", "a\u0000b"],
    ["newline", "a\nb"],
    ["space", "a b"],
  ])("refuses %s", (_label, id) => {
    const validation = validateId(id);
    expect(validation.success).toBe(false);
  });

  it("refuses non-strings", () => {
    expect(validateId(42).success).toBe(false);
    expect(validateId(undefined).success).toBe(false);
  });

  it("run paths refuse an id that would leave the runs directory", () => {
    for (const id of ["../x", "..", "a/b", ""]) {
      let caught: unknown;
      try {
        runPaths("/data", id);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PersistenceError);
      expect((caught as PersistenceError).code).toBe("INVALID_ID");
    }
    const paths = runPaths("/data", "run-1");
    expect(paths).toEqual({
      dir: "/data/runs/run-1",
      checkpoint: "/data/runs/run-1/checkpoint.json",
      checkpointDelta: "/data/runs/run-1/checkpoint-delta.jsonl",
      journal: "/data/runs/run-1/journal.jsonl",
      scratch: "/data/runs/run-1/scratch",
      trace: "/data/runs/run-1/trace.jsonl",
    });
  });
});

describe("createRunId", () => {
  it("makes valid, unique ids that sort by creation time", () => {
    const ids = [
      createRunId(new Date("2024-12-31T23:59:59.999Z")),
      createRunId(new Date("2025-01-01T00:00:00.000Z")),
      createRunId(new Date("2025-01-01T00:00:00.001Z")),
      createRunId(new Date("2025-06-01T10:00:00.000Z")),
    ];
    for (const id of ids) expect(validateId(id).success).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[1]).toMatch(/^20250101T000000000Z-[0-9a-f]{12}$/);
    const many = new Set(Array.from({ length: 1000 }, () => createRunId()));
    expect(many.size).toBe(1000);
  });
});
