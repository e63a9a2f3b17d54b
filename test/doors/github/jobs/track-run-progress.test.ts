import { describe, expect, it } from "@jest/globals";
import { trackRunProgress } from "../../../../src/doors/github/jobs/track-run-progress.js";
import { usageLine } from "../../../../src/doors/github/jobs/job-messages.js";

describe("the cost a GitHub comment shows", () => {
  it("says the cost is unknown in the progress comment once a call had no known price", () => {
    const updates: string[] = [];
    const tracker = trackRunProgress({
      heading: "Working",
      progress: {
        update: async (text: string) => void updates.push(text),
        finish: async (text: string) => void updates.push(text),
      },
      now: () => 0,
    });
    tracker.onEvent({
      type: "usage-updated",
      turn: 1,
      totalTokens: 1200,
      promptTokens: 1000,
      completionTokens: 200,
      costUsd: null,
    });
    tracker.onEvent({ type: "tool-call-start", turn: 1, callId: "c1", name: "list_dir", arguments: "{}" });
    expect(updates.at(-1)).toContain("1,200 tokens · cost unknown");
    expect(updates.at(-1)).not.toContain("$");
  });

  it("says so in the final usage line, and keeps a known cost in dollars", () => {
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
    expect(usageLine({ turns: 2, usage, costUsd: null })).toBe("2 turns · 15 tokens · cost unknown");
    expect(usageLine({ turns: 1, usage, costUsd: 0.0123 })).toBe("1 turn · 15 tokens · $0.0123");
  });

  it("counts refusals, and says plainly when every action was refused", () => {
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
    const figures = { turns: 3, usage, costUsd: 0.0123 };
    expect(usageLine({ ...figures, actions: { attempted: 4, refused: 1 } })).toBe(
      "3 turns · 15 tokens · $0.0123 · 1 refused",
    );
    expect(usageLine({ ...figures, actions: { attempted: 2, refused: 2 } })).toBe(
      "⚠️ Every action the agent tried was refused (2 of 2): it changed and ran nothing, whatever the text above says. Allow the commands it needs in `allowed_commands` of `.github/agentforge.yml`.\n\n3 turns · 15 tokens · $0.0123 · 2 refused",
    );
    expect(usageLine({ ...figures, actions: { attempted: 0, refused: 0 } })).toBe(
      "3 turns · 15 tokens · $0.0123",
    );
  });
});
