import { errorResult, type ToolResult } from "../tool-result.js";
import { findSimilarPaths } from "./find-similar-paths.js";

/** FILE_NOT_FOUND with the existing paths the model most likely meant. */
export async function fileNotFoundError(root: string, relative: string): Promise<ToolResult> {
  const suggestions = await findSimilarPaths(root, relative);
  const listed = suggestions.length > 0 ? ` Similar existing paths: ${suggestions.join(", ")}.` : "";
  return errorResult("FILE_NOT_FOUND", {
    message: `no such file or directory: ${relative}`,
    output:
      suggestions.length > 0 ? `Did you mean:\n${suggestions.map((item) => `  ${item}`).join("\n")}` : "",
    recovery_hint: `Check the path.${listed} Use list_dir or glob to find the right one.`,
    next_actions: [
      ...suggestions.slice(0, 3).map((item) => `read_file ${item}`),
      "list_dir .",
      "glob **/<name>",
    ],
    metadata: { path: relative, suggestions },
  });
}

export function isDirectoryError(relative: string): ToolResult {
  return errorResult("IS_DIRECTORY", {
    message: `${relative} is a directory, not a file`,
    recovery_hint: "Use list_dir to see what it contains, then read one of its files.",
    next_actions: [`list_dir ${relative}`],
    metadata: { path: relative },
  });
}

export function notADirectoryError(relative: string): ToolResult {
  return errorResult("NOT_A_DIRECTORY", {
    message: `${relative} is a file, not a directory`,
    recovery_hint: "Use read_file to read it, or give its parent directory.",
    next_actions: [`read_file ${relative}`],
    metadata: { path: relative },
  });
}

export function notRegularFileError(relative: string): ToolResult {
  return errorResult("INVALID_ARGUMENTS", {
    message: `${relative} is not a regular file (device, socket or pipe)`,
    recovery_hint: "Only regular files can be read or edited with file tools.",
    next_actions: ["list_dir ."],
    metadata: { path: relative },
  });
}

export function binaryFileError(relative: string): ToolResult {
  return errorResult("BINARY_FILE", {
    message: `${relative} looks like a binary file`,
    recovery_hint:
      "Binary files cannot be read or edited as text. Inspect it with a shell command (for example `file` or `xxd | head`) if one is allowed, or work on its source instead.",
    next_actions: ["list_dir ."],
    metadata: { path: relative },
  });
}

export function fileTooLargeError(relative: string, bytes: number, maxBytes: number): ToolResult {
  return errorResult("FILE_TOO_LARGE", {
    message: `${relative} is ${formatBytes(bytes)}; the limit is ${formatBytes(maxBytes)}`,
    recovery_hint:
      "Use grep with a pattern and context to see the parts you need, or a shell command such as `sed -n 1,200p` if one is allowed.",
    next_actions: [`grep <pattern> --path ${relative}`],
    metadata: { path: relative, bytes },
  });
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The search tools leave git's own files out; asking to search inside `.git` says so instead of listing them. */
export function gitDirectorySkippedError(tool: string, relative: string): ToolResult {
  return errorResult("INVALID_ARGUMENTS", {
    message: `${relative} is inside .git: ${tool} leaves git's own files out`,
    recovery_hint: "Search the working tree instead; read a file under .git with read_file if you need one.",
    next_actions: [`${tool} .`],
    metadata: { path: relative },
  });
}

/** An absolute pattern, or one with a `..` segment, would match outside the directory searched. */
export function patternLeavesSearch(pattern: string): boolean {
  const relative = pattern.replace(/^(\.\/)+/, "");
  return relative.startsWith("/") || relative.split(/[\\/]/).includes("..");
}

export function patternOutsideError(field: string, pattern: string, example: string): ToolResult {
  return errorResult("OUTSIDE_WORKSPACE", {
    message: `the ${field} "${pattern}" reaches outside the search directory`,
    recovery_hint: `Give a ${field} relative to \`path\` without \`..\` or a leading \`/\`; set \`path\` to search another directory of the workspace.`,
    next_actions: [example],
  });
}

/** No write permission for anyone: the file was made read-only on purpose, and the file tools keep it so. */
export function isReadOnlyMode(mode: number): boolean {
  return (mode & 0o222) === 0;
}

export function readOnlyFileError(relative: string, mode: number): ToolResult {
  const octal = (mode & 0o7777).toString(8).padStart(4, "0");
  return errorResult("PERMISSION_DENIED", {
    message: `${relative} is read-only (mode ${octal}); the file tools do not write over it`,
    recovery_hint:
      "Leave it as it is, or, if changing it is part of the task, make it writable first with a command (chmod u+w) and say why.",
    next_actions: ["edit a writable file instead", `shell: chmod u+w ${relative}`],
    metadata: { path: relative, mode: octal },
  });
}
