import { realpath } from "node:fs/promises";
import { discoverWorkspaceRepository } from "../../core/git/index.js";
import { createRuntime } from "../../core/runtime/index.js";
import { scopeCommandRunner } from "../../core/tools/index.js";
import { RuntimeError } from "../../core/runtime/index.js";
import { runReviewerPanel } from "../../core/review/index.js";
import { buildReview } from "../github/review/build-review.js";
import { diffForPullRequest } from "../github/review/diff-range-for-synchronize.js";
import { parseDiffForReview } from "../github/review/parse-diff-for-review.js";
import { EXIT_CODES, type CliIo } from "./cli-io.js";

interface ReviewOptions {
  readonly cwd?: string;
  readonly base?: string;
  readonly config?: string;
  readonly json?: boolean;
}

/**
 * `agentforge review`: the same reviewer panel the App runs on a pull request, over the diff of a
 * local checkout against a base ref (`base...HEAD`, plus uncommitted changes are not included).
 */
export async function reviewCommand(raw: Record<string, unknown>, io: CliIo): Promise<number> {
  const options = raw as ReviewOptions;
  let workspaceRoot: string;
  try {
    workspaceRoot = await realpath(options.cwd ?? process.cwd());
  } catch {
    io.stderr(`agentforge review: the folder ${options.cwd ?? "."} does not exist (--cwd)\n`);
    return EXIT_CODES.usage;
  }
  const base = options.base ?? "HEAD";
  const discovered = await discoverWorkspaceRepository(workspaceRoot);
  if (discovered.kind === "none") {
    io.stderr(
      `agentforge review: ${workspaceRoot} is not a git checkout (${discovered.reason}). Check --cwd.\n`,
    );
    return EXIT_CODES.usage;
  }
  const repository = discovered.repository;
  let diff: string;
  try {
    diff = await diffForPullRequest({ repository, base, head: "HEAD" });
  } catch (error) {
    io.stderr(
      `agentforge review: cannot diff ${base}...HEAD in ${workspaceRoot} (${error instanceof Error ? error.message : String(error)}). Check --base and --cwd.\n`,
    );
    return EXIT_CODES.usage;
  }
  if (diff.trim() === "") {
    io.stdout(
      options.json
        ? `${JSON.stringify({ findings: [], body: "No changes to review." })}\n`
        : `No changes between ${base} and HEAD.\n`,
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
        diffSource: `git:diff ${base}...HEAD`,
        description: `The change is ${base}...HEAD of the checkout.`,
      });
      const review = buildReview({
        findings: panel.findings,
        files: parseDiffForReview(diff),
        summary: `Review of ${base}...HEAD.`,
      });
      if (options.json) {
        io.stdout(
          `${JSON.stringify({ findings: panel.findings, comments: review.comments, body: review.body, notes: panel.notes, totalTokens: panel.totalTokens, costUsd: panel.costUsd }, null, 2)}\n`,
        );
      } else {
        io.stdout(`${review.body}\n`);
        for (const comment of review.comments)
          io.stdout(`\n${comment.path}:${comment.line}\n${comment.body}\n`);
        for (const note of panel.notes) io.stderr(`note: ${note}\n`);
      }
      return EXIT_CODES.ok;
    } finally {
      await runtime.close();
    }
  } catch (error) {
    if (error instanceof RuntimeError) {
      io.stderr(`agentforge review: ${error.message}\n`);
      return EXIT_CODES.usage;
    }
    throw error;
  }
}
