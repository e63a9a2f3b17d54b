import { z } from "zod";
import { defineTool } from "../tool.js";
import { readFileTool } from "./read-file-tool.js";

/**
 * Long outputs are cut for the model and saved whole in the run's scratch folder, which lies
 * outside the workspace. This tool reads those files, confined to the scratch folder the same way
 * read_file is confined to the workspace.
 */
export const readSavedOutputTool = defineTool({
  name: "read_saved_output",
  description:
    "Read part of a long tool output that was cut and saved (the path is given in the cut output). Use offset/limit to page through it.",
  kind: "read",
  inputSchema: z.object({
    path: z.string().describe("The saved-output path exactly as given in the cut output"),
    offset: z.number().int().min(1).nullish().describe("First line to read (1-based)"),
    limit: z.number().int().min(1).nullish().describe("How many lines to read"),
  }),
  execute: (input, context) => readFileTool.execute(input, { ...context, workspaceRoot: context.scratchDir }),
});
