import type { Tool } from "../tool.js";
import { applyPatchTool } from "./apply-patch-tool.js";
import { editFileTool } from "./edit-file-tool.js";
import { globTool } from "./glob-tool.js";
import { grepTool } from "./grep-tool.js";
import { listDirTool } from "./list-dir-tool.js";
import { readFileTool } from "./read-file-tool.js";
import { writeFileTool } from "./write-file-tool.js";

/** The workspace file tools: four that read, three that write. */
export function createFileTools(): Tool[] {
  return [readFileTool, listDirTool, globTool, grepTool, writeFileTool, editFileTool, applyPatchTool];
}
