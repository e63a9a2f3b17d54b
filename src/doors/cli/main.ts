import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { APPROVAL_MODES } from "../../core/policy/index.js";
import { EXIT_CODES, processIo, type CliIo } from "./cli-io.js";
import { traceCommand } from "./trace-command.js";

const EXAMPLES = `
Examples:
  $ agentforge run "fix the failing test in src/math.ts" --cwd ./repo
  $ echo "explain src/index.ts" | agentforge run --mode plan --json
  $ agentforge mock-model --script demo/script.json --port 8787
  $ agentforge trace .agentforge/traces/run.jsonl --html report.html
  $ agentforge policy check --approval never --allow "npm test" -- "npm test && rm -rf /"
  $ agentforge review --fail-on high
  $ agentforge eval evals/tasks.json --json
  $ agentforge doctor

Exit codes: 0 success; 1 the run or check did not succeed (no final answer, rejected, failed tasks);
2 policy check needs confirmation; 64 bad usage or configuration; 69 model unreachable; 130 cancelled.`;

/** The CLI door: parses argv, calls the core, renders its events. Returns the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let exitCode: number = EXIT_CODES.ok;
  const program = new Command()
    .name("agentforge")
    .description("An agent harness for code: run, review, replay and judge agent runs.")
    .version("0.1.0")
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showSuggestionAfterError(true)
    .showHelpAfterError(
      "(run agentforge --help for the commands, agentforge COMMAND --help for their options)",
    )
    .addHelpText("after", EXAMPLES);

  program
    .command("run")
    .description("run the harness on a local checkout; the prompt comes from the argument or stdin")
    .argument("[prompt]", "what to do")
    .option("--cwd <dir>", "the checkout to work in", process.cwd())
    .addOption(
      new Option("--mode <mode>", "build changes files; plan only reads")
        .choices(["build", "plan"])
        .default("build"),
    )
    .addOption(
      new Option(
        "--approval <mode>",
        "approval mode (default on-request, which asks on the terminal; without a terminal, choose one)",
      ).choices(APPROVAL_MODES),
    )
    .option(
      "--allow <prefix>",
      'a command prefix allowed in the sandbox beyond read-only ones (e.g. "npm test"; repeatable)',
      collect,
      [] as string[],
    )
    .option("--max-turns <n>", "hard limit on model calls", parsePositiveInt)
    .option("--context-window <n>", "context window in tokens", parsePositiveInt)
    .option("--max-output-tokens <n>", "cap on one model answer, in tokens", parsePositiveInt)
    .option("--temperature <t>", "sampling temperature (0 to 2)", parseTemperature)
    .option("--trace <file>", "where to write the trace (JSON Lines)")
    .option("--resume <id>", "continue a run that crashed or was stopped")
    .option("--config <file>", "operator config file (overrides AGENTFORGE_CONFIG)")
    .option("--json", "print one JSON result instead of progress")
    .option("--no-stream", "show each model message whole when it is complete, not as it arrives")
    .action(async (prompt: string | undefined, options: Record<string, unknown>) => {
      const { runCommand } = await import("./run-command.js");
      exitCode = await runCommand(prompt, options, io);
    });

  program
    .command("review")
    .description(
      "review what a pull request from the checkout would hold (work tree included) with the reviewer subagents",
    )
    .option("--cwd <dir>", "the checkout", process.cwd())
    .option("--base <ref>", "the base to compare with (default: the default branch, origin/HEAD)")
    .option(
      "--fail-on <severity>",
      "exit 1 when a finding is this severe or worse: critical, high, medium or low",
    )
    .option("--config <file>", "operator config file")
    .option("--json", "print the findings as JSON")
    .action(async (options: Record<string, unknown>) => {
      const { reviewCommand } = await import("./review-command.js");
      exitCode = await reviewCommand(options, io);
    });

  program
    .command("trace")
    .description("replay a recorded run as a readable story, without calling a model or a tool")
    .argument("<file>", "a trace file (JSON Lines)")
    .option("--html <out>", "also write a self-contained HTML report")
    .option("--json", "print the parsed trace as JSON")
    .action(async (file: string, options: { html?: string; json?: boolean }) => {
      exitCode = await traceCommand(file, options, io);
    });

  program
    .command("eval")
    .description("run a suite of tasks and judge each with deterministic rules")
    .argument("<tasks>", "a TASKS.json file")
    .option("--json", "print the report as JSON")
    .option("--report <file>", "where to write the JSON report")
    .option("--concurrency <n>", "tasks run at once", parsePositiveInt)
    .action(async (tasks: string, options: Record<string, unknown>) => {
      const { evalCommand } = await import("./eval-command.js");
      exitCode = await evalCommand(tasks, options, io);
    });

  program
    .command("policy")
    .description("inspect the command policy")
    .command("check")
    .description("say what the policy would decide for a shell command")
    .addOption(new Option("--approval <mode>", "approval mode").choices(APPROVAL_MODES).default("never"))
    .option("--allow <prefix>", "an allowed command prefix (repeatable)", collect, [] as string[])
    .argument("<command...>", "the command, after --")
    .action(async (command: string[], options: { approval: string; allow: string[] }) => {
      const { policyCheckCommand } = await import("./policy-check-command.js");
      exitCode = await policyCheckCommand(command, options, io);
    });

  program
    .command("mock-model")
    .description("serve an OpenAI-compatible model that answers from a script or replays a trace")
    .option("--script <file>", "a mock script (JSON)")
    .option("--trace <file>", "a trace whose model side is replayed")
    .option("--port <n>", "port (0 picks a free one)", parseNonNegativeInt, 8787)
    .option("--host <host>", "address to bind", "127.0.0.1")
    .action(async (options: { script?: string; trace?: string; port: number; host: string }) => {
      const { mockModelCommand } = await import("./mock-model-command.js");
      exitCode = await mockModelCommand(options, io);
    });

  program
    .command("serve")
    .description("start the GitHub App server (what `npm start` runs)")
    .action(async () => {
      const { serveCommand } = await import("./serve-command.js");
      exitCode = await serveCommand(io);
    });

  program
    .command("worker")
    .description("run queued tasks (with REDIS_URL, any number of workers on any machines)")
    .action(async () => {
      const { workerCommand } = await import("./worker-command.js");
      exitCode = await workerCommand(io);
    });

  program
    .command("doctor")
    .description("check the machine: git, sandbox, keys, config, data dir")
    .option("--json", "print the checks as JSON")
    .action(async (options: { json?: boolean }) => {
      const { doctorCommand } = await import("./doctor-command.js");
      exitCode = await doctorCommand(options, io);
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    }
    throw error;
  }
  return exitCode;
}

function parsePositiveInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError(`expected a positive whole number, got "${value}"`);
  return parsed;
}

function parseTemperature(value: string): number {
  const parsed = Number(value);
  if (value.trim() === "" || !Number.isFinite(parsed) || parsed < 0 || parsed > 2)
    throw new InvalidArgumentError(`expected a number from 0 to 2, got "${value}"`);
  return parsed;
}

function parseNonNegativeInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new InvalidArgumentError(`expected a whole number ≥ 0, got "${value}"`);
  return parsed;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
