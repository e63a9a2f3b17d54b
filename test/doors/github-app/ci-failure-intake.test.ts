import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "yaml";
import { admitDelivery } from "../../../src/doors/github-app/admit-delivery.js";
import type { IntakeEvent } from "../../../src/doors/github-app/intake-context.js";
import { INTAKE_EVENTS } from "../../../src/doors/github-app/triage-delivery.js";
import { edit, webhookExample as example } from "../action/webhook-example.js";

function event(name: "check_suite.completed" | "workflow_run.completed", payload: unknown) {
  // Admission reads the payload only; it never calls GitHub.
  return { id: "d-1", name, payload, octokit: undefined, config: undefined } as unknown as IntakeEvent & {
    name: typeof name;
  };
}

describe("red CI at the App's intake", () => {
  it("subscribes to every event intake answers, and may read Actions job logs", () => {
    const appYml = parse(readFileSync(resolve("app.yml"), "utf8")) as {
      default_events: string[];
      default_permissions: Record<string, string>;
    };
    const subscribed = new Set(appYml.default_events);
    for (const name of INTAKE_EVENTS) expect(subscribed).toContain(name.split(".")[0]);
    expect(appYml.default_permissions["actions"]).toBe("read");
    expect(["read", "write"]).toContain(appYml.default_permissions["checks"]);
  });

  it("admits a red suite on a pull request and ends a green one, or the app's own, from the payload alone", () => {
    const red = edit(example("check_suite", "completed"), {
      "check_suite.conclusion": "failure",
      "check_suite.app": { slug: "github-actions" },
    });
    expect(admitDelivery(event("check_suite.completed", red), "agentforge")).toEqual({ needsTriage: true });
    const green = example("check_suite", "completed");
    expect(admitDelivery(event("check_suite.completed", green), "agentforge")).toEqual({
      needsTriage: false,
      decision: "not-for-app",
    });
    const own = edit(structuredClone(red), { "check_suite.app": { slug: "agentforge" } });
    expect(admitDelivery(event("check_suite.completed", own), "agentforge")).toEqual({
      needsTriage: false,
      decision: "not-for-app",
    });
    // The example run is on no pull request.
    const run = edit(example("workflow_run", "completed"), { "workflow_run.conclusion": "failure" });
    expect(admitDelivery(event("workflow_run.completed", run), "agentforge")).toEqual({
      needsTriage: false,
      decision: "not-for-app",
    });
  });
});
