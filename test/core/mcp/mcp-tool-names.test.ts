import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import {
  assignMcpToolNames,
  mcpToolNameFor,
  MODEL_TOOL_NAME_PATTERN,
  type McpToolIdentity,
} from "../../../src/core/mcp/mcp-tool-names.js";

const nameOf = (identities: McpToolIdentity[], identity: McpToolIdentity, reserved?: Set<string>) =>
  mcpToolNameFor(assignMcpToolNames(identities, reserved), identity);

describe("MCP tool names", () => {
  it("namespaces and sanitises", () => {
    const identity = { server: "git.hub", tool: "search/issues v2" };
    expect(nameOf([identity], identity)).toBe("git_hub__search_issues_v2");
  });

  it("disambiguates servers that sanitise to the same prefix, whatever the order", () => {
    const dotted = { server: "a.b", tool: "read_file" };
    const underscored = { server: "a_b", tool: "read_file" };
    const forward = assignMcpToolNames([dotted, underscored]);
    const backward = assignMcpToolNames([underscored, dotted]);
    const dottedName = mcpToolNameFor(forward, dotted)!;
    const underscoredName = mcpToolNameFor(forward, underscored)!;
    expect(dottedName).not.toBe(underscoredName);
    expect(dottedName).toMatch(/^a_b__read_file-[0-9a-f]{8}$/);
    expect(mcpToolNameFor(backward, dotted)).toBe(dottedName);
    expect(mcpToolNameFor(backward, underscored)).toBe(underscoredName);
  });

  it("cuts long names with a stable hash so two long names sharing a prefix stay apart", () => {
    const long = "x".repeat(80);
    const first = { server: "server", tool: `${long}one` };
    const second = { server: "server", tool: `${long}two` };
    const names = assignMcpToolNames([first, second]);
    const a = mcpToolNameFor(names, first)!;
    const b = mcpToolNameFor(names, second)!;
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(mcpToolNameFor(assignMcpToolNames([first]), first)).toBe(a);
  });

  it("never takes a reserved built-in name", () => {
    const identity = { server: "read", tool: "file" };
    expect(nameOf([identity], identity, new Set(["read__file"]))).toMatch(/^read__file-[0-9a-f]{8}$/);
  });

  it("always gives valid, unique, order-independent names (property)", () => {
    const part = fc.string({
      minLength: 0,
      maxLength: 90,
      unit: fc.constantFrom("a", "b", "_", ".", "-", "/", " ", "é", "Z", "9"),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ server: part, tool: part }), {
          selector: (item) => `${item.server}\u0000${item.tool}`,
          maxLength: 12,
        }),
        (identities) => {
          const names = assignMcpToolNames(identities);
          const reversed = assignMcpToolNames([...identities].reverse());
          const assigned = identities.map((identity) => mcpToolNameFor(names, identity)!);
          expect(assigned.every((name) => MODEL_TOOL_NAME_PATTERN.test(name))).toBe(true);
          expect(new Set(assigned).size).toBe(identities.length);
          expect(identities.map((identity) => mcpToolNameFor(reversed, identity))).toEqual(assigned);
        },
      ),
      { numRuns: 300 },
    );
  });
});
