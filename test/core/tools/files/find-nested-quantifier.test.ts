import { describe, expect, it } from "@jest/globals";
import { findNestedQuantifier } from "../../../../src/core/tools/files/find-nested-quantifier.js";

describe("findNestedQuantifier", () => {
  it("flags repeated groups that repeat inside", () => {
    expect(findNestedQuantifier("(a+)+")).toBe("(a+)+");
    expect(findNestedQuantifier("^(\\w*\\s?)*$")).toBe("(\\w*\\s?)*");
    expect(findNestedQuantifier("((ab)*c)+")).toBe("((ab)*c)+");
    expect(findNestedQuantifier("(x+y){2,}")).toBe("(x+y){2,}");
  });

  it("leaves ordinary patterns alone", () => {
    for (const pattern of ["function \\w+\\(", "(ab)+", "[(+]+", "\\(a+\\)+", "(a|b)?c*", "(?:foo)\\d+"]) {
      expect(findNestedQuantifier(pattern)).toBeUndefined();
    }
  });
});
