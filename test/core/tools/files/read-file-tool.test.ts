import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { readFileTool } from "../../../../src/core/tools/files/read-file-tool.js";
import { createWorkspace, runTool, type Workspace } from "./workspace-fixture.js";

let workspace: Workspace;
beforeEach(async () => {
  workspace = await createWorkspace();
});
afterEach(async () => {
  await workspace.cleanup();
});

const read = (input: Record<string, unknown>) => runTool(readFileTool, input, workspace.context);

describe("read_file", () => {
  it("numbers lines and reports total, truncation and the trailing newline", async () => {
    await workspace.write("a.txt", "one\ntwo\nthree\n");
    const result = await read({ path: "a.txt" });
    expect(result.ok).toBe(true);
    expect(result.output).toContain("     1\tone\n     2\ttwo\n     3\tthree");
    expect(result.output).not.toContain("no newline");
    expect(result.metadata).toMatchObject({
      path: "a.txt",
      totalLines: 3,
      kind: "file-read",
      truncated: false,
      endsWithNewline: true,
    });
  });

  it("pages with offset and limit and says how to continue", async () => {
    await workspace.write(
      "long.txt",
      Array.from({ length: 50 }, (_, index) => `line ${index + 1}`).join("\n"),
    );
    const result = await read({ path: "long.txt", offset: 10, limit: 5 });
    expect(result.output).toContain("    10\tline 10");
    expect(result.output).toContain("    14\tline 14");
    expect(result.output).not.toContain("line 15");
    expect(result.output).toContain("offset=15");
    expect(result.metadata).toMatchObject({
      totalLines: 50,
      startLine: 10,
      endLine: 14,
      truncated: true,
      endsWithNewline: false,
    });
    const tail = await read({ path: "long.txt", offset: 48 });
    expect(tail.metadata).toMatchObject({ truncated: false, endLine: 50 });
    expect(tail.output).toContain("[no newline at end of file]");
    const past = await read({ path: "long.txt", offset: 51 });
    expect(past.error?.error_type).toBe("INVALID_ARGUMENTS");
  });

  it("shows CRLF files without carriage returns and says they use CRLF", async () => {
    await workspace.write("win.txt", "a\r\nb\r\n");
    const result = await read({ path: "win.txt" });
    expect(result.output).toContain("CRLF");
    expect(result.output).not.toContain("\r");
    expect(result.metadata).toMatchObject({ lineEnding: "crlf", totalLines: 2 });
  });

  it("reports an empty file", async () => {
    await workspace.write("empty.txt", "");
    const result = await read({ path: "empty.txt" });
    expect(result.ok).toBe(true);
    expect(result.metadata).toMatchObject({ totalLines: 0 });
  });

  it("suggests similar paths for a missing file", async () => {
    await workspace.write("src/utils/format-date.ts", "x");
    await workspace.write("src/index.ts", "x");
    const result = await read({ path: "src/utils/formatDate.ts" });
    expect(result.error?.error_type).toBe("FILE_NOT_FOUND");
    expect(result.metadata?.suggestions).toEqual(expect.arrayContaining(["src/utils/format-date.ts"]));
    const otherExtension = await read({ path: "src/index.js" });
    expect((otherExtension.metadata?.suggestions as string[])[0]).toBe("src/index.ts");
    const elsewhere = await read({ path: "lib/format-date.ts" });
    expect(elsewhere.metadata?.suggestions).toEqual(["src/utils/format-date.ts"]);
    expect(elsewhere.next_actions).toContain("read_file src/utils/format-date.ts");
  });

  it("refuses directories, binary files and files that are too large", async () => {
    await mkdir(path.join(workspace.root, "dir"));
    expect((await read({ path: "dir" })).error?.error_type).toBe("IS_DIRECTORY");
    await workspace.write(
      "image.png",
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 1, 2, 3, 0, 0, 0]),
    );
    const binary = await read({ path: "image.png" });
    expect(binary.error?.error_type).toBe("BINARY_FILE");
    expect(binary.recovery_hint).toBeTruthy();
    await workspace.write("big.log", "x".repeat(5 * 1024 * 1024 + 1));
    const big = await read({ path: "big.log" });
    expect(big.error?.error_type).toBe("FILE_TOO_LARGE");
    expect(big.recovery_hint).toContain("grep");
  });

  it("refuses to read outside the workspace by .., absolute path or symlink", async () => {
    await workspace.write("../outside/secret.txt", "secret");
    await symlink(path.join(workspace.outside, "secret.txt"), path.join(workspace.root, "link.txt"));
    for (const requested of [
      "../outside/secret.txt",
      path.join(workspace.outside, "secret.txt"),
      "link.txt",
    ]) {
      const result = await read({ path: requested });
      expect(result.error?.error_type).toBe("OUTSIDE_WORKSPACE");
      expect(result.output).not.toContain("secret");
    }
  });

  it("cuts very long lines", async () => {
    await workspace.write("min.js", `${"a".repeat(5000)}\n`);
    const result = await read({ path: "min.js" });
    expect(result.output).toContain("line cut: 3000 more characters");
    expect(result.output.length).toBeLessThan(2300);
  });

  it("refuses a file named with a trailing slash, as the kernel would, instead of reading it", async () => {
    await workspace.write("a.txt", "one\n");
    for (const requested of ["a.txt/", "a.txt/."]) {
      const result = await read({ path: requested });
      expect(result.error?.error_type).toBe("NOT_A_DIRECTORY");
      expect(result.output).not.toContain("one");
    }
    expect((await read({ path: "a.txt" })).ok).toBe(true);
  });
});
