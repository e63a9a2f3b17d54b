import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../tool.js";
import { okResult } from "../tool-result.js";
import { ensureParentDirectory } from "./ensure-parent-directory.js";
import { formatBytes, isDirectoryError, isReadOnlyMode, readOnlyFileError } from "./file-errors.js";
import { isMissingError, resolveWorkspacePath } from "./resolve-workspace-path.js";
import { writeFileAtomically } from "./write-file-atomically.js";

const writeFileInput = z.object({
  path: z
    .string()
    .describe("File to write, relative to the workspace root. Missing parent directories are created."),
  content: z.string().describe("The complete new content of the file."),
});

export const writeFileTool = defineTool({
  name: "write_file",
  description:
    "Create a file, or replace a file's whole content. Prefer edit_file for changes to an existing file: it is safer and shows a diff. " +
    "Read an existing file before overwriting it. Cannot write inside .git or outside the workspace.",
  kind: "write",
  inputSchema: writeFileInput,
  describeAction(input, context) {
    return { paths: [path.resolve(context.workspaceRoot, input.path)] };
  },
  async execute(input, context) {
    const resolved = resolveWorkspacePath(context.workspaceRoot, input.path, { forWrite: true });
    if (!resolved.success) return resolved.error;
    const target = resolved.value;
    let existingMode: number | undefined;
    try {
      const stats = await stat(target.absolute);
      if (stats.isDirectory()) return isDirectoryError(target.relative);
      existingMode = stats.mode & 0o7777;
    } catch (error) {
      if (!isMissingError(error)) throw error;
    }
    if (existingMode !== undefined && isReadOnlyMode(existingMode)) {
      return readOnlyFileError(target.relative, existingMode);
    }
    const created = existingMode === undefined;
    const parentError = await ensureParentDirectory(target);
    if (parentError !== undefined) return parentError;
    const notWritten = await writeFileAtomically(target, input.content, existingMode);
    if (notWritten !== undefined) return notWritten;

    const bytes = Buffer.byteLength(input.content, "utf8");
    const lineCount =
      input.content === "" ? 0 : input.content.split("\n").length - (input.content.endsWith("\n") ? 1 : 0);
    return okResult(
      `${created ? "Created" : "Overwrote"} ${target.relative}: ${lineCount} lines, ${formatBytes(bytes)}.`,
      {
        summary: `${created ? "created" : "wrote"} ${target.relative}`,
        artifacts: [target.relative],
        next_actions: [`read_file ${target.relative}`],
        metadata: { path: target.relative, kind: "file-write", created, bytes, lines: lineCount },
      },
    );
  },
});
