import { describe, expect, it } from "@jest/globals";
import { convertMcpResult } from "../../../src/core/mcp/convert-mcp-result.js";

describe("converting MCP results", () => {
  it("keeps text, describes binary content and includes embedded text resources", () => {
    const result = convertMcpResult(
      {
        content: [
          { type: "text", text: "one" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///a.txt", text: "inside a", mimeType: "text/plain" } },
          {
            type: "resource",
            resource: { uri: "file:///b.bin", blob: "AAECAw==", mimeType: "application/octet-stream" },
          },
          { type: "resource_link", uri: "file:///c.md", name: "c" },
        ],
      },
      "srv",
      "tool",
    );
    expect(result.ok).toBe(true);
    expect(result.output).toBe(
      [
        "one",
        "[audio audio/wav, 3 bytes, not shown]",
        "[resource file:///a.txt]\ninside a",
        "[resource file:///b.bin, application/octet-stream, 4 bytes of binary data, not shown]",
        "[resource link file:///c.md (c)]",
      ].join("\n"),
    );
    expect(result.metadata).toEqual({ mcp_server: "srv", mcp_tool: "tool" });
  });

  it("shows structured content only when there is no text, and reads the legacy toolResult shape", () => {
    expect(
      convertMcpResult({ content: [], structuredContent: { temperature: 21 } }, "s", "t").output,
    ).toContain('"temperature": 21');
    expect(
      convertMcpResult(
        { content: [{ type: "text", text: "21 degrees" }], structuredContent: { temperature: 21 } },
        "s",
        "t",
      ).output,
    ).toBe("21 degrees");
    expect(convertMcpResult({ toolResult: { answer: 1 } }, "s", "t").output).toContain('"answer": 1');
  });

  it("turns isError into MCP_ERROR, also without a message", () => {
    const silent = convertMcpResult({ isError: true, content: [] }, "s", "t");
    expect(silent).toMatchObject({ ok: false, error: { error_type: "MCP_ERROR", recoverable: true } });
    expect(silent.error?.message).toBe("s says: The server reported an error without a message.");
    const long = convertMcpResult(
      { isError: true, content: [{ type: "text", text: "x".repeat(2_000) }] },
      "s",
      "t",
    );
    expect(long.error!.message.length).toBeLessThan(600);
    expect(long.output).toHaveLength(2_000);
  });
});
