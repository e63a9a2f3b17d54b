import { describe, expect, it } from "@jest/globals";
import { collectPatchPaths, unquoteGitPath } from "../../../../src/core/tools/files/collect-patch-paths.js";

describe("collectPatchPaths", () => {
  it("names the paths git writes: rename and copy targets, and quoted names decoded", () => {
    const rename = [
      "diff --git a/a.txt b/shown.txt",
      "similarity index 100%",
      "rename from a.txt",
      "rename to actually-written.txt",
      "",
    ].join("\n");
    expect(collectPatchPaths(rename)).toEqual(expect.arrayContaining(["a.txt", "actually-written.txt"]));
    const quoted = [
      'diff --git "a/\\150idden.txt" "b/\\150idden.txt"',
      "new file mode 100644",
      "--- /dev/null",
      '+++ "b/\\150idden.txt"',
      "@@ -0,0 +1 @@",
      "+x",
      "",
    ].join("\n");
    expect(collectPatchPaths(quoted)).toContain("hidden.txt");
  });

  it("decodes git's C-style quoting, octal bytes as UTF-8", () => {
    expect(unquoteGitPath('"caf\\303\\251 \\"x\\"\\\\y\\t.txt"')).toBe('café "x"\\y\t.txt');
    expect(unquoteGitPath("plain.txt")).toBe("plain.txt");
  });
});
