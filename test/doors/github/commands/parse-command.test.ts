import { describe, expect, it } from "@jest/globals";
import {
  MAX_INSTRUCTIONS_LENGTH,
  parseCommand,
  type Command,
} from "../../../../src/doors/github/commands/parse-command.js";

type Expected = Command | null | { error: string };

const cases: [string, string, Expected][] = [
  // Plain commands
  ["fix this", "@agentforge fix this", { kind: "fix" }],
  ["fix alone", "@agentforge fix", { kind: "fix" }],
  ["fix this with punctuation", "@agentforge fix this!", { kind: "fix" }],
  ["fix it please", "@agentforge fix it please.", { kind: "fix" }],
  ["fix ci", "@agentforge fix ci", { kind: "fix-ci" }],
  ["fix the CI, with a model", "@agentforge fix the CI with gpt-4.1", { kind: "fix-ci", model: "gpt-4.1" }],
  [
    "fix ci plus more is a fix with instructions",
    "@agentforge fix ci config in the release workflow",
    { kind: "fix", instructions: "ci config in the release workflow" },
  ],
  [
    "fix with instructions",
    "@agentforge fix the off-by-one in parser.ts",
    { kind: "fix", instructions: "the off-by-one in parser.ts" },
  ],
  [
    "fix this plus more",
    "@agentforge fix this bug in the CLI",
    { kind: "fix", instructions: "this bug in the CLI" },
  ],
  [
    "fix with multi-line instructions",
    "@agentforge fix\n\nUse the new API.\nKeep tests.",
    { kind: "fix", instructions: "Use the new API.\nKeep tests." },
  ],
  ["plan", "@agentforge plan", { kind: "plan" }],
  [
    "plan with instructions",
    "@agentforge plan a migration to zod 4",
    { kind: "plan", instructions: "a migration to zod 4" },
  ],
  ["review", "@agentforge review", { kind: "review" }],
  ["review with words", "@agentforge review please", { kind: "review" }],
  ["review full", "@agentforge review full", { kind: "review", full: true }],
  ["review all is full", "@agentforge review all.", { kind: "review", full: true }],
  ["pause", "@agentforge pause", { kind: "pause" }],
  ["resume please", "@agentforge resume please", { kind: "resume" }],
  ["ignore this", "@agentforge ignore this", { kind: "ignore" }],
  [
    "ignore followed by text is a request",
    "@agentforge ignore the lint warning on line 3",
    { kind: "request", text: "ignore the lint warning on line 3" },
  ],
  ["stop", "@agentforge stop", { kind: "stop" }],
  ["stop please", "@agentforge stop please", { kind: "stop" }],
  ["cancel is stop", "@agentforge cancel", { kind: "stop" }],
  ["help", "@agentforge help", { kind: "help" }],
  ["help with question mark", "@agentforge help?", { kind: "help" }],
  [
    "help followed by text is a request",
    "@agentforge help me understand this function",
    { kind: "request", text: "help me understand this function" },
  ],
  [
    "stop followed by text is a request",
    "@agentforge stop using var here",
    { kind: "request", text: "stop using var here" },
  ],
  [
    "free-form request",
    "@agentforge rename the variable to count",
    { kind: "request", text: "rename the variable to count" },
  ],
  // A model chosen with a trailing `with <model>`
  ["fix this with a model", "@agentforge fix this with gpt-4.1", { kind: "fix", model: "gpt-4.1" }],
  [
    "fix with instructions and a model",
    "@agentforge fix the crash in parser.ts with qwen2.5-coder:7b",
    { kind: "fix", instructions: "the crash in parser.ts", model: "qwen2.5-coder:7b" },
  ],
  [
    "a plain word after with is part of the instructions",
    "@agentforge fix the crash with retries",
    { kind: "fix", instructions: "the crash with retries" },
  ],
  [
    "with in the middle is part of the instructions",
    "@agentforge fix the crash with gpt-4.1 in mind please",
    { kind: "fix", instructions: "the crash with gpt-4.1 in mind please" },
  ],
  [
    "fix with a model and a full stop",
    "@agentforge fix it with openai/gpt-5.",
    { kind: "fix", model: "openai/gpt-5" },
  ],
  [
    "plan with a model",
    "@agentforge plan a migration to zod 4 with gpt-4.1-mini",
    { kind: "plan", instructions: "a migration to zod 4", model: "gpt-4.1-mini" },
  ],
  ["review with a model", "@agentforge review with o3", { kind: "review", model: "o3" }],
  [
    "review full with a model",
    "@agentforge review full with openai/gpt-5",
    { kind: "review", full: true, model: "openai/gpt-5" },
  ],
  [
    "request with a model",
    "@agentforge rename the variable to count With Claude-Sonnet-4",
    { kind: "request", text: "rename the variable to count", model: "Claude-Sonnet-4" },
  ],
  [
    "request that is only a model stays the words",
    "@agentforge with gpt-4.1",
    { kind: "request", text: "with gpt-4.1" },
  ],
  [
    "request with a plain word after with",
    "@agentforge cover this with tests",
    { kind: "request", text: "cover this with tests" },
  ],
  // Case and punctuation
  ["upper-case mention and verb", "@AgentForge FIX this", { kind: "fix" }],
  ["mixed-case verb", "@agentforge Review", { kind: "review" }],
  ["colon after the name", "@agentforge: fix this", { kind: "fix" }],
  ["comma after the name", "@agentforge, plan", { kind: "plan" }],
  ["mention mid-sentence", "Thanks! @agentforge fix this", { kind: "fix" }],
  ["mention in parentheses", "(@agentforge help)", { kind: "request", text: "help)" }],
  ["command on the next line", "@agentforge\nfix this", { kind: "fix" }],
  ["mention inside emphasis", "**@agentforge** plan", { kind: "request", text: "** plan" }],
  // Not a mention of the app
  ["no mention", "please fix this", null],
  ["longer name with dash", "@agentforge-bot fix this", null],
  ["longer name with letters", "@agentforgex fix this", null],
  ["bot-style name", "@agentforge[bot] fix this", null],
  ["e-mail address", "write to foo@agentforge.com fix this", null],
  ["domain after the name", "see @agentforge.io fix", null],
  ["team mention", "@agentforge/maintainers fix this", null],
  ["in a url", "https://example.com/@agentforge fix", null],
  ["escaped at-sign", "\\@agentforge fix this", null],
  ["empty body", "", null],
  // Hidden places
  ["backtick fence", "```\n@agentforge fix this\n```", null],
  ["backtick fence with info", "```bash\n@agentforge fix this\n```", null],
  ["tilde fence", "~~~\n@agentforge fix this\n~~~", null],
  ["longer fence with inner short fence", "````\n```\n@agentforge fix\n```\n````", null],
  ["unclosed fence hides the rest", "```\n@agentforge fix this", null],
  ["indented fence in a list", "- step\n  ```\n  @agentforge fix\n  ```", null],
  ["inline code", "Type `@agentforge fix this` to start", null],
  ["double-backtick code span", "Use ``@agentforge `fix` `` here", null],
  ["block quote", "> @agentforge fix this", null],
  ["indented block quote", "   > @agentforge fix this", null],
  ["nested block quote", "> > @agentforge fix this", null],
  ["lazy quote continuation", "> earlier text\n@agentforge fix this", null],
  ["html comment", "<!-- @agentforge fix this -->", null],
  ["multi-line html comment", "<!--\n@agentforge fix this\n-->", null],
  ["indented code block", "Example:\n\n    @agentforge fix this", null],
  ["html code element", "<code>@agentforge fix this</code>", null],
  ["pre element", "<pre>\n@agentforge fix this\n</pre>", null],
  // Visible text around hidden text
  ["after a closed fence", "```\n@agentforge plan\n```\n@agentforge fix this", { kind: "fix" }],
  ["after a quote and blank line", "> @agentforge plan\n\n@agentforge fix this", { kind: "fix" }],
  ["after an html comment", "<!-- @agentforge plan -->\n@agentforge review", { kind: "review" }],
  ["after inline code on the same line", "`@agentforge plan` @agentforge help", { kind: "help" }],
  ["unclosed backtick is literal", "a ` b @agentforge help", { kind: "help" }],
  ["list item", "- @agentforge fix this", { kind: "fix" }],
  ["list continuation is prose", "- first\n\n    @agentforge plan", { kind: "plan" }],
  [
    "instructions keep their code block",
    "@agentforge fix the crash:\n```\nTypeError: x\n```",
    { kind: "fix", instructions: "the crash:\n```\nTypeError: x\n```" },
  ],
  // First valid mention wins
  ["first of two mentions", "@agentforge plan\n@agentforge fix this", { kind: "plan" }],
  ["empty first mention then a command", "cc @agentforge\n\n> quoted\n\n@agentforge help", { kind: "help" }],
  // Errors
  ["mention with nothing after", "@agentforge", { error: "EMPTY_COMMAND" }],
  ["mention followed only by code", "@agentforge `fix`", { error: "EMPTY_COMMAND" }],
  ["windows line endings", "@agentforge fix this\r\n", { kind: "fix" }],
];

describe("parseCommand", () => {
  it.each(cases)("%s", (_name, body, expected) => {
    const result = parseCommand(body);
    if (expected === null) {
      expect(result).toBeNull();
    } else if ("error" in expected) {
      expect(result).toMatchObject({ success: false, error: { code: expected.error } });
    } else {
      expect(result).toEqual({ success: true, value: expected });
    }
  });

  it("has at least forty cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it("uses the given app slug and escapes it", () => {
    expect(parseCommand("@my.bot fix this", "my.bot")).toEqual({ success: true, value: { kind: "fix" } });
    expect(parseCommand("@myxbot fix this", "my.bot")).toBeNull();
    expect(parseCommand("@agentforge fix this", "my.bot")).toBeNull();
  });

  it("refuses instructions over the length limit", () => {
    const result = parseCommand(`@agentforge fix ${"x".repeat(MAX_INSTRUCTIONS_LENGTH + 1)}`);
    expect(result).toMatchObject({ success: false, error: { code: "TOO_LONG" } });
  });

  it("scans a large body in linear time", () => {
    const body = `${"text `code` > no\n".repeat(20_000)}@agentforge help`;
    const started = performance.now();
    expect(parseCommand(body)).toEqual({ success: true, value: { kind: "help" } });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
