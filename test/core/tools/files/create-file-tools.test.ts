import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import { createFileTools } from "../../../../src/core/tools/files/create-file-tools.js";

describe("createFileTools", () => {
  it("returns the seven file tools with their kinds", () => {
    const tools = createFileTools();
    expect(tools.map((tool) => [tool.name, tool.kind])).toEqual([
      ["read_file", "read"],
      ["list_dir", "read"],
      ["glob", "read"],
      ["grep", "read"],
      ["write_file", "write"],
      ["edit_file", "write"],
      ["apply_patch", "write"],
    ]);
    for (const tool of tools) {
      expect(typeof tool.describeAction === "function").toBe(tool.kind === "write");
    }
  });

  it("describes every input field for the model", () => {
    for (const tool of createFileTools()) {
      const schema = z.toJSONSchema(tool.inputSchema, { target: "draft-7" }) as {
        properties: Record<string, { description?: string }>;
      };
      for (const [field, property] of Object.entries(schema.properties)) {
        expect([tool.name, field, typeof property.description]).toEqual([tool.name, field, "string"]);
      }
      expect(tool.description.length).toBeLessThan(600);
    }
  });
});
