import { chmod, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { editFileTool } from "../../../../src/core/tools/files/edit-file-tool.js";
import { createWorkspace, runTool, type Workspace } from "./workspace-fixture.js";

let workspace: Workspace;
beforeEach(async () => {
  workspace = await createWorkspace();
});
afterEach(async () => {
  await workspace.cleanup();
});

const edit = (input: Record<string, unknown>) => runTool(editFileTool, input, workspace.context);
const contentOf = (relative: string) => readFile(path.join(workspace.root, relative), "utf8");

const SOURCE = [
  "export function add(a: number, b: number) {",
  "  return a + b;",
  "}",
  "",
  "export function subtract(a: number, b: number) {",
  "  return a - b;",
  "}",
  "",
].join("\n");

describe("edit_file", () => {
  it("replaces one exact occurrence and shows a numbered diff", async () => {
    await workspace.write("math.ts", SOURCE);
    const result = await edit({
      path: "math.ts",
      old_string: "  return a - b;",
      new_string: "  return a - b - 0;",
    });
    expect(result.ok).toBe(true);
    expect(await contentOf("math.ts")).toBe(SOURCE.replace("a - b;", "a - b - 0;"));
    expect(result.output).toContain("-    6    return a - b;");
    expect(result.output).toContain("+    6    return a - b - 0;");
    expect(result.output).toContain("     5  export function subtract");
    expect(result.artifacts).toEqual(["math.ts"]);
    expect(result.metadata).toMatchObject({ kind: "file-edit", replacements: 1 });
  });

  it("treats $ patterns in new_string literally", async () => {
    await workspace.write("a.txt", "price\n");
    await edit({ path: "a.txt", old_string: "price", new_string: "$& $1 $$" });
    expect(await contentOf("a.txt")).toBe("$& $1 $$\n");
  });

  it("reports no match with the most similar lines", async () => {
    await workspace.write("math.ts", SOURCE);
    const result = await edit({ path: "math.ts", old_string: "  return a * b;\n}", new_string: "x" });
    expect(result.error?.error_type).toBe("EDIT_NO_MATCH");
    expect(result.output).toContain("line 2: return a + b;");
    expect(result.output).toContain("line 6: return a - b;");
    expect(result.recovery_hint).toContain("read_file");
    expect(await contentOf("math.ts")).toBe(SOURCE);
  });

  it("says when only whitespace differs", async () => {
    await workspace.write("math.ts", SOURCE);
    const result = await edit({ path: "math.ts", old_string: "    return a + b;", new_string: "x" });
    expect(result.error?.message).toContain("whitespace or indentation");
  });

  it("refuses ambiguous matches with the count and lines, unless replace_all", async () => {
    await workspace.write("math.ts", SOURCE);
    const ambiguous = await edit({ path: "math.ts", old_string: "a: number", new_string: "x: number" });
    expect(ambiguous.error?.error_type).toBe("EDIT_AMBIGUOUS");
    expect(ambiguous.error?.message).toContain("2 times");
    expect(ambiguous.error?.message).toContain("lines 1, 5");
    expect(await contentOf("math.ts")).toBe(SOURCE);
    const all = await edit({
      path: "math.ts",
      old_string: "a: number",
      new_string: "x: number",
      replace_all: true,
    });
    expect(all.metadata).toMatchObject({ replacements: 2 });
    expect(await contentOf("math.ts")).toBe(SOURCE.replaceAll("a: number", "x: number"));
    expect(all.output).toContain("+    5  export function subtract(x: number");
  });

  it("refuses edits that change nothing", async () => {
    await workspace.write("math.ts", SOURCE);
    expect((await edit({ path: "math.ts", old_string: "add", new_string: "add" })).error?.error_type).toBe(
      "EDIT_NO_CHANGE",
    );
    await workspace.write("crlf.txt", "a\r\nb\r\n");
    const sameAfterNormalising = await edit({ path: "crlf.txt", old_string: "a\r\nb", new_string: "a\nb" });
    expect(sameAfterNormalising.error?.error_type).toBe("EDIT_NO_CHANGE");
  });

  it("keeps CRLF line endings when old and new strings use LF", async () => {
    await workspace.write("win.txt", "first\r\nsecond\r\nthird\r\n");
    const result = await edit({
      path: "win.txt",
      old_string: "first\nsecond",
      new_string: "first\nmiddle\nsecond",
    });
    expect(result.ok).toBe(true);
    expect(await contentOf("win.txt")).toBe("first\r\nmiddle\r\nsecond\r\nthird\r\n");
  });

  it("keeps the file mode", async () => {
    const script = await workspace.write("run.sh", "echo a\n");
    await chmod(script, 0o750);
    await edit({ path: "run.sh", old_string: "echo a", new_string: "echo b" });
    expect((await stat(script)).mode & 0o777).toBe(0o750);
  });

  it("creates a missing file when old_string is empty, and refuses that on a file with content", async () => {
    const created = await edit({ path: "new/file.txt", old_string: "", new_string: "hello\n" });
    expect(created.metadata).toMatchObject({ created: true });
    expect(await contentOf("new/file.txt")).toBe("hello\n");
    const refused = await edit({ path: "new/file.txt", old_string: "", new_string: "again" });
    expect(refused.error?.error_type).toBe("INVALID_ARGUMENTS");
  });

  it("suggests paths for a missing file and refuses .git and outside paths", async () => {
    await workspace.write("src/math.ts", SOURCE);
    const missing = await edit({ path: "src/maths.ts", old_string: "a", new_string: "b" });
    expect(missing.error?.error_type).toBe("FILE_NOT_FOUND");
    expect(missing.metadata?.suggestions).toContain("src/math.ts");
    expect((await edit({ path: ".git/config", old_string: "", new_string: "x" })).error?.error_type).toBe(
      "PERMISSION_DENIED",
    );
    expect((await edit({ path: "../outside/x", old_string: "", new_string: "x" })).error?.error_type).toBe(
      "OUTSIDE_WORKSPACE",
    );
  });

  it("counts overlapping occurrences as ambiguous", async () => {
    await workspace.write("braces.ts", "x = 1;\n}\n}\n}\n");
    const result = await edit({ path: "braces.ts", old_string: "}\n}", new_string: "}" });
    expect(result.error?.error_type).toBe("EDIT_AMBIGUOUS");
    expect(result.metadata).toMatchObject({ occurrences: 2, lines: [2, 3] });
    expect(await readFile(path.join(workspace.root, "braces.ts"), "utf8")).toBe("x = 1;\n}\n}\n}\n");
  });

  it("refuses to edit a file that is not UTF-8, leaving every byte as it was", async () => {
    const latin1 = Buffer.from("caf\xe9 = 1\nother = 2\n", "latin1");
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("name = 1\n", "utf16le")]);
    for (const [name, bytes] of [
      ["latin1.txt", latin1],
      ["utf16.txt", utf16],
    ] as const) {
      await workspace.write(name, bytes);
      const result = await edit({
        path: name,
        old_string: name === "latin1.txt" ? "other = 2" : "1",
        new_string: "3",
      });
      expect({ name, type: result.error?.error_type }).toEqual({ name, type: "BINARY_FILE" });
      expect((await readFile(path.join(workspace.root, name))).equals(bytes)).toBe(true);
    }
  });

  it("refuses half of a character in old_string or new_string", async () => {
    await workspace.write("emoji.txt", "x😀y\n");
    const result = await edit({ path: "emoji.txt", old_string: "\ud83d", new_string: "" });
    expect(result.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(await readFile(path.join(workspace.root, "emoji.txt"), "utf8")).toBe("x😀y\n");
  });

  it("answers EDIT_NO_MATCH on a large file with suggestions from a bounded amount of work", async () => {
    const line = (index: number) => `const value${index} = compute(${"x".repeat(160)}, ${index});`;
    await workspace.write(
      "big.ts",
      `${Array.from({ length: 24_000 }, (_, index) => line(index)).join("\n")}\n`,
    );
    const result = await edit({
      path: "big.ts",
      old_string: line(3).replace("compute", "computer"),
      new_string: "y",
    });
    expect(result.error?.error_type).toBe("EDIT_NO_MATCH");
    expect(result.error?.message ?? "").toContain("big.ts");
  });

  it("edits across lines of a file with mixed line endings, keeping every line's own ending", async () => {
    await workspace.write("mixed.txt", "first\r\nsecond\r\nthird\nfourth\r\n");
    const result = await edit({
      path: "mixed.txt",
      old_string: "first\nsecond",
      new_string: "FIRST\nSECOND",
    });
    expect(result.ok).toBe(true);
    expect(await readFile(path.join(workspace.root, "mixed.txt"), "utf8")).toBe(
      "FIRST\r\nSECOND\r\nthird\nfourth\r\n",
    );
    const crossing = await edit({
      path: "mixed.txt",
      old_string: "SECOND\nthird\nfourth",
      new_string: "two\nthree",
    });
    expect(crossing.ok).toBe(true);
    expect(await readFile(path.join(workspace.root, "mixed.txt"), "utf8")).toBe("FIRST\r\ntwo\r\nthree\r\n");
  });

  it("refuses to edit a read-only file and leaves it as it was", async () => {
    const file = await workspace.write("locked.txt", "keep\n");
    await chmod(file, 0o400);
    const result = await edit({ path: "locked.txt", old_string: "keep", new_string: "changed" });
    expect(result.error?.error_type).toBe("PERMISSION_DENIED");
    expect(await readFile(file, "utf8")).toBe("keep\n");
  });
});
