import { describe, expect, it } from "@jest/globals";
import { errorResult, okResult } from "../../../src/core/tools/tool-result.js";

describe("tool results", () => {
  it("an error result carries a typed error, a hint and next actions", () => {
    const result = errorResult("FILE_NOT_FOUND", {
      message: "no such file: a.ts",
      recovery_hint: "list the directory",
      next_actions: ["list_dir ."],
    });
    expect(result.ok).toBe(false);
    expect(result.error).toEqual({
      error_type: "FILE_NOT_FOUND",
      message: "no such file: a.ts",
      recoverable: true,
    });
    expect(result.next_actions).toEqual(["list_dir ."]);
  });
  it("an ok result has no error", () => {
    const result = okResult("hi", { summary: "said hi" });
    expect(result.ok).toBe(true);
    expect(result.error).toBeUndefined();
  });
});
