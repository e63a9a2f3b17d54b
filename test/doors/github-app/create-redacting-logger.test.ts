import { describe, expect, it } from "@jest/globals";
import { PassThrough } from "node:stream";
import { createRedactor } from "../../../src/core/safety/create-redactor.js";
import { createRedactingLogger } from "../../../src/doors/github-app/create-redacting-logger.js";

describe("the App's log", () => {
  it("never writes a token, in messages, merged objects or errors", async () => {
    const token = `ghs_${"A1b2C3d4".repeat(5)}`;
    const redactor = createRedactor({ secrets: ["webhook-secret-value-123"] });
    const destination = new PassThrough();
    const chunks: string[] = [];
    let lineCount = 0;
    // The transform writes asynchronously: the test waits for the three lines to arrive.
    const threeLines = new Promise<void>((resolve) =>
      destination.on("data", (chunk: Buffer) => {
        chunks.push(chunk.toString());
        lineCount += chunk.toString().split("\n").length - 1;
        if (lineCount >= 3) resolve();
      }),
    );
    const log = await createRedactingLogger({
      level: "info",
      logFormat: "json",
      redact: (text) => redactor.redact(text),
      redactDeep: (value) => redactor.redactDeep(value),
      destination,
    });

    log.info(`pushing with ${token}`);
    log.warn(
      {
        url: `https://x-access-token:${token}@github.com/o/r.git`,
        nested: { secret: "webhook-secret-value-123" },
      },
      "push refused",
    );
    log.error(
      { err: new Error(`fatal: could not read from https://x-access-token:${token}@github.com`) },
      "git failed",
    );
    await threeLines;

    const output = chunks.join("");
    expect(output.split("\n").filter(Boolean)).toHaveLength(3);
    expect(output).toContain("push refused");
    expect(output).toContain("REDACTED");
    expect(output).not.toContain(token);
    expect(output).not.toContain("webhook-secret-value-123");
  });
});
