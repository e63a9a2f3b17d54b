import { describe, expect, it } from "@jest/globals";
import type { CliIo } from "../../../src/doors/cli/cli-io.js";
import { main } from "../../../src/doors/cli/main.js";
import { parseOperatorConfig } from "../../../src/core/config/load-operator-config.js";
import { formatConfigIssues } from "../../../src/doors/github/format-config-issues.js";
import { repositoryConfigSchema } from "../../../src/doors/github/repository-config.js";

function captureIo(): CliIo & { err: () => string } {
  let err = "";
  return {
    stdout: () => undefined,
    stderr: (text) => void (err += text),
    isTty: false,
    env: { PATH: process.env.PATH },
    readStdin: async () => "",
    err: () => err,
  };
}

describe("command-line conventions", () => {
  it.each([
    [["rum", "x"], "error: unknown command 'rum'\n(Did you mean run?)\n"],
    [["frobnicate"], "error: unknown command 'frobnicate'\n"],
    [["run", "--max-turn", "3", "x"], "error: unknown option '--max-turn'\n(Did you mean --max-turns?)\n"],
  ])("%j is answered with a suggestion where one is near, and a pointer to --help", async (argv, said) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(64);
    expect(io.err()).toBe(
      `${said}(run agentforge --help for the commands, agentforge COMMAND --help for their options)\n`,
    );
  });

  it("names the nearest valid key of a mistyped operator config key, at its own level", () => {
    const parsed = parseOperatorConfig({ budgets: { max_turn: 3 }, modle: "x", zzzzzzzz: 1 }, "ops.yml");
    expect(parsed.success).toBe(false);
    const error = parsed.success ? "" : parsed.error;
    expect(error).toContain("max_turn — did you mean max_turns?");
    expect(error).toContain("modle — did you mean model?");
    expect(error).toMatch(/zzzzzzzz[);]/);
  });

  it("names the nearest valid key of a mistyped repository config key", () => {
    const parsed = repositoryConfigSchema.safeParse({ alowed_commands: ["npm test"] });
    expect(parsed.success).toBe(false);
    const lines = parsed.success ? [] : formatConfigIssues(parsed.error.issues);
    expect(lines[0]).toContain("`alowed_commands`: unknown key — did you mean allowed_commands?");
  });
});
