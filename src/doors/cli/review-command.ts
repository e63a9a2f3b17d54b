import { realpath } from "node:fs/promises";
import { discoverWorkspaceRepository, isHostGitError } from "../../core/git/index.js";
import { SEVERITIES, runReviewerPanel, type Severity } from "../../core/review/index.js";
import { createRuntime } from "../../core/runtime/index.js";
import { scopeCommandRunner } from "../../core/tools/index.js";
import { RuntimeError } from "../../core/runtime/index.js";
import { mergeFindings } from "../github/review/merge-findings.js";
import { EXIT_CODES, type CliIo } from "./cli-io.js";
import { diffLocalChanges, findDefaultBase } from "./diff-local-changes.js";
import { isAtOrAbove, listFinding, renderReviewForTerminal } from "./render-review-for-terminal.js";

interface ReviewOptions {
  readonly cwd?: string;
  readonly base?: string;
  readonly config?: string;
  readonly json?: boolean;
  readonly failOn?: string;
}

/**
 * `agentforge review`: the same reviewer panel the App runs on a pull request, over what a pull
 * request from this checkout would hold: the work tree (committed or not) against the merge base
 * with the default branch, or with `--base`.
 */
export async function reviewCommand(raw: Record<string, unknown>, io: CliIo): Promise<number> {
  const options = raw as ReviewOptions;
  const failOn = options.failOn;
  if (failOn !== undefined && !(SEVERITIES as readonly string[]).includes(failOn))
    return usage(io, `--fail-on takes one of ${SEVERITIES.join(", ")}, not "${failOn}"`);
  let workspaceRoot: string;
  try {
    workspaceRoot = await realpath(options.cwd ?? process.cwd());
  } catch {
    return usage(io, `the folder ${options.cwd ?? "."} does not exist (--cwd)`);
  }
  const discovered = await discoverWorkspaceRepository(workspaceRoot);
  if (discovered.kind === "none")
    return usage(io, `${workspaceRoot} is not a git checkout (${discovered.reason}). Check --cwd.`);
  const repository = discovered.repository;
  const base = options.base ?? (await findDefaultBase(repository));
  if (base === null)
    return usage(
      io,
      "no default branch found (no origin/HEAD, origin/main, origin/master, main or master): name the base with --base REF",
    );
  const reviewed = `the changes since ${base} (work tree included)`;
  let diff: string;
  try {
    const local = await diffLocalChanges(repository, base);
    if (!local.success) return usage(io, local.error);
    diff = local.value;
  } catch (error) {
    if (!isHostGitError(error)) throw error;
    return usage(
      io,
      `cannot diff against ${base} in ${workspaceRoot} (${error.message}). Check --base and --cwd.`,
    );
  }
  if (diff.trim() === "") {
    io.stdout(
      options.json ? `${JSON.stringify({ base, findings: [], notes: [] })}\n` : `No changes since ${base}.\n`,
    );
    return EXIT_CODES.ok;
  }
  try {
    const runtime = await createRuntime({
      env: io.env,
      ...(options.config ? { configPath: options.config } : {}),
    });
    try {
      const panel = await runReviewerPanel({
        model: runtime.model,
        commandRunner: scopeCommandRunner(runtime.commandRunner, {
          readOnlyPaths: repository.sandboxReadOnlyPaths,
        }),
        workspaceRoot,
        signal: new AbortController().signal,
        redact: (text) => runtime.runner.redact(text),
        diff,
        diffSource: `git:diff ${base} (work tree)`,
        description: `The change is the checkout's work tree against its merge base with ${base}.`,
      });
      const findings = mergeFindings(panel.findings).map(listFinding);
      if (options.json) {
        const { totalTokens, costUsd, notes } = panel;
        io.stdout(`${JSON.stringify({ base, findings, notes, totalTokens, costUsd }, null, 2)}\n`);
      } else {
        io.stdout(renderReviewForTerminal(findings, reviewed));
        for (const note of panel.notes) io.stderr(`note: ${note}\n`);
      }
      const threshold = failOn as Severity | undefined;
      const failing =
        threshold === undefined ? [] : findings.filter((finding) => isAtOrAbove(finding.severity, threshold));
      if (failing.length > 0 && !options.json)
        io.stderr(`review: ${failing.length} finding(s) at ${threshold} or worse (--fail-on ${threshold})\n`);
      return failing.length > 0 ? EXIT_CODES.failure : EXIT_CODES.ok;
    } finally {
      await runtime.close();
    }
  } catch (error) {
    if (error instanceof RuntimeError) return usage(io, error.message);
    throw error;
  }
}

function usage(io: CliIo, message: string): number {
  io.stderr(`agentforge review: ${message}\n`);
  return EXIT_CODES.usage;
}
