import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { rmSync } from "node:fs";
import { evaluateCommandWith } from "../../../src/core/policy/evaluate-command.js";
import { loadBashParser, type BashParser } from "../../../src/core/policy/load-bash-parser.js";
import { checkBubblewrap, createTemplate, SandboxRunner, SANDBOX_WORKSPACE } from "./bash-sandbox.js";
import { commandLine, destructiveLine } from "./command-line-arbitraries.js";

/**
 * The proof of the read-only judgement: command lines from a grammar that mixes harmless
 * commands with every construct the policy must refuse are judged in `never` with no allowed
 * prefixes, and each one approved is run by real bash in a bubblewrap sandbox whose only
 * writable places are scratch folders (the workspace, HOME, /tmp), which must be unchanged.
 *
 * POLICY_PROPERTY_RUNS (default 300) sets how many command lines; POLICY_PROPERTY_SEED the seed.
 */
const RUNS = Number.parseInt(process.env["POLICY_PROPERTY_RUNS"] ?? "300", 10);
const SEED = Number.parseInt(process.env["POLICY_PROPERTY_SEED"] ?? "20261201", 10);
/** Command lines per property run: approved ones of a batch run two at a time. */
const BATCH = 10;
const place = { workspaceRoot: SANDBOX_WORKSPACE };
/** Long local runs need more than jest's default; about 0.15 s per line on a busy 2-core machine. */
const TIMEOUT_MS = Math.max(600_000, RUNS * 300);

const sandbox = checkBubblewrap();
if (!sandbox.available) {
  process.stdout.write(`judge-against-bash: skipped, no bubblewrap sandbox here (${sandbox.reason})\n`);
}
const describeWithSandbox = sandbox.available ? describe : describe.skip;

let parser: BashParser;
beforeAll(async () => {
  parser = await loadBashParser();
});

describeWithSandbox("the judge against real bash", () => {
  let template: string;
  let runner: SandboxRunner;
  beforeAll(() => {
    template = createTemplate();
    runner = new SandboxRunner(template);
  });
  afterAll(async () => {
    await runner.close();
    rmSync(template, { recursive: true, force: true });
  });

  it(
    `approves in \`never\` only command lines that change no file when bash runs them (${RUNS} lines)`,
    async () => {
      const counts = { judged: 0, approved: 0, ran: 0, timedOut: 0 };
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(fc.array(commandLine, { minLength: BATCH, maxLength: BATCH }), async (lines) => {
          const approved = lines.filter((line) => {
            counts.judged += 1;
            const decision = evaluateCommandWith(parser, line, {
              approvalMode: "never",
              allowPrefixes: [],
              place,
            });
            return decision.decision === "approved";
          });
          counts.approved += approved.length;
          const failures: string[] = [];
          for (let index = 0; index < approved.length; index += 2) {
            const pair = approved.slice(index, index + 2);
            const runs = await Promise.all(pair.map((line) => runner.run(line)));
            runs.forEach((run, position) => {
              counts.ran += 1;
              counts.timedOut += run.timedOut ? 1 : 0;
              if (run.changes.length > 0) {
                failures.push(
                  `${JSON.stringify(pair[position])} was approved and bash ${run.changes.join(", ")}`,
                );
              }
            });
          }
          expect(failures).toEqual([]);
        }),
        { seed: SEED, numRuns: Math.max(1, Math.ceil(RUNS / BATCH)), endOnFailure: true },
      );
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(
        `judge-against-bash: ${counts.judged} command lines, ${counts.approved} approved, ${counts.ran} run by bash, ` +
          `${counts.timedOut} timed out, none changed a file (${seconds.toFixed(1)} s)\n`,
      );
      // The grammar must keep producing approved lines, or the property proves nothing.
      expect(counts.approved).toBeGreaterThan(counts.judged / 10);
    },
    TIMEOUT_MS,
  );
});

describe("the judge in `auto`", () => {
  it(
    `never approves a deletion or write aimed outside the workspace (${RUNS * 10} lines)`,
    () => {
      fc.assert(
        fc.property(destructiveLine, (line) => {
          const decision = evaluateCommandWith(parser, line, {
            approvalMode: "auto",
            allowPrefixes: [],
            place,
          });
          expect({ line, decision: decision.decision }).not.toEqual({ line, decision: "approved" });
        }),
        { seed: SEED, numRuns: RUNS * 10 },
      );
    },
    TIMEOUT_MS,
  );
});
