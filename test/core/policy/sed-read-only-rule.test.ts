import { describe, expect, it } from "@jest/globals";
import { checkPrintScript } from "../../../src/core/policy/sed-read-only-rule.js";

describe("checkPrintScript", () => {
  it.each([
    "p",
    "1,20p",
    "$p",
    "$=",
    "/a/,/b/p",
    "\\%x%p",
    "1~2p",
    "/x/I p",
    "10q",
    "/a/!d;p",
    "1,+3p",
    "/[0-9]/p",
    "/[]a]/p",
    "/a\\/b/p",
    "{p;p}",
  ])("accepts the print script %s", (script) => {
    expect(checkPrintScript(script)).toBeUndefined();
  });

  it.each([
    "w out",
    "1w out",
    "s/a/b/",
    "s/a/b/w out",
    "e rm x",
    "1e rm x",
    "r /etc/passwd",
    "W out",
    "y/a/b/",
    "/[/]w x/p",
    "/[]/]/p",
    "/a/w x",
    "p w",
    "/unterminated",
  ])("refuses %s", (script) => {
    expect(checkPrintScript(script)).toEqual(expect.any(String));
  });
});
