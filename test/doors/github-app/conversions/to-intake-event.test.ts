import { describe, expect, it } from "@jest/globals";
import type { Context } from "probot";
import { toIntakeEvent } from "../../../../src/doors/github-app/intake-context.js";

const context = (name: string, payload: object): Context =>
  ({ id: "delivery-1", name, payload, octokit: {}, config: async () => null }) as unknown as Context;

describe("toIntakeEvent", () => {
  it("names the event with its action, as intake's handlers are keyed", () => {
    const event = toIntakeEvent(context("issue_comment", { action: "created" }));
    expect(event.name).toBe("issue_comment.created");
    expect(event.id).toBe("delivery-1");
  });

  it("keeps the bare name of an event without an action", () => {
    expect(toIntakeEvent(context("push", { ref: "refs/heads/main" })).name).toBe("push");
    expect(toIntakeEvent(context("ping", { action: 3 })).name).toBe("ping");
  });

  it("reads repository config through the delivery's own context", async () => {
    const calls: string[] = [];
    const base = context("issues", { action: "labeled" });
    const event = toIntakeEvent({
      ...base,
      config: async (fileName: string) => {
        calls.push(fileName);
        return { from: fileName };
      },
    } as unknown as Context);
    await expect(event.config("agentforge.yml")).resolves.toEqual({ from: "agentforge.yml" });
    expect(calls).toEqual(["agentforge.yml"]);
  });
});
