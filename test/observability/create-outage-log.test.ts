import { describe, expect, it } from "@jest/globals";
import { createOutageLog, type OutageLogger } from "../../src/observability/create-outage-log.js";

interface Line {
  readonly level: "info" | "warn" | "error";
  readonly message: string;
}

/** A logger whose lines can be waited for: the test moves on when the line is written. */
function createWaitingLogger() {
  const lines: Line[] = [];
  const waiters: { match: (line: Line) => boolean; resolve: (line: Line) => void }[] = [];
  const write = (level: Line["level"]) => (_: object, message: string) => {
    const line = { level, message };
    lines.push(line);
    for (const waiter of waiters.filter((entry) => entry.match(line))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  };
  const logger: OutageLogger = { info: write("info"), warn: write("warn"), error: write("error") };
  return {
    logger,
    lines,
    next: (level: Line["level"]) =>
      new Promise<Line>((resolve) => waiters.push({ match: (line) => line.level === level, resolve })),
  };
}

describe("an outage in the log", () => {
  it("is logged once, then summarised, and its recovery is logged", async () => {
    const { logger, lines, next } = createWaitingLogger();
    let isUp = false;
    const outage = createOutageLog({
      service: "Redis",
      variable: "REDIS_URL",
      logger,
      probe: () =>
        isUp
          ? Promise.resolve("PONG")
          : Promise.reject(Object.assign(new Error("refused"), { code: "ECONNREFUSED" })),
      summaryMs: 40,
      probeMs: 10,
    });
    try {
      const summary = next("warn");
      for (let attempt = 0; attempt < 25; attempt += 1)
        outage.reportError(
          Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" }),
        );
      expect(lines).toEqual([
        {
          level: "error",
          message:
            "Redis does not answer (REDIS_URL): ECONNREFUSED; retrying, further errors are summarised every 0 s",
        },
      ]);
      expect((await summary).message).toMatch(
        /^Redis still does not answer \(REDIS_URL\) after \d+ s: 24 errors since the last summary, the last: ECONNREFUSED$/,
      );
      expect(outage.isDown).toBe(true);
      const recovered = next("info");
      isUp = true;
      expect((await recovered).message).toMatch(
        /^Redis answers again \(REDIS_URL\) after \d+ s and 25 connection errors$/,
      );
      expect(outage.isDown).toBe(false);
      // A new outage starts a new first line.
      outage.reportError(new Error("read ECONNRESET"));
      expect(lines.filter((line) => line.level === "error")).toHaveLength(2);
    } finally {
      outage.close();
    }
  });
});
