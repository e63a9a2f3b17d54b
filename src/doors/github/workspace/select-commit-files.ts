import { matchBuildOutput } from "./build-output.js";

export interface CommittedFile {
  readonly path: string;
  /** `agent`: a file tool of the run wrote it; `command`: a command the run started changed it. */
  readonly changedBy: "agent" | "command";
}

export interface LeftOutFile {
  readonly path: string;
  readonly reason: string;
}

export interface CommitSelection {
  readonly committed: readonly CommittedFile[];
  readonly leftOut: readonly LeftOutFile[];
}

type Git = (args: readonly string[]) => Promise<string>;

/** Ignored paths listed at most, so a `node_modules/` of thousands does not fill the body. */
const MAX_IGNORED_LISTED = 20;

/**
 * Once everything is staged: unstages what commands produced as build output (unless a file
 * tool wrote it, which the agent meant), and says what is committed and what was left out, why.
 * `unstage` puts a path's index entry back as HEAD has it.
 */
export async function selectCommitFiles(
  git: Git,
  options: {
    readonly agentChangedFiles: readonly string[];
    readonly buildOutputPatterns: readonly string[];
    readonly unstage: (path: string) => Promise<void>;
  },
): Promise<CommitSelection> {
  const byAgent = new Set(options.agentChangedFiles);
  const staged = splitNul(await git(["diff", "--cached", "--name-only", "--no-renames", "-z"]));
  const committed: CommittedFile[] = [];
  const leftOut: LeftOutFile[] = [];
  for (const path of staged) {
    const pattern = byAgent.has(path) ? null : matchBuildOutput(path, options.buildOutputPatterns);
    if (pattern === null) {
      committed.push({ path, changedBy: byAgent.has(path) ? "agent" : "command" });
      continue;
    }
    await options.unstage(path);
    leftOut.push({ path, reason: `build output (matches \`${pattern}\`)` });
  }
  const ignored = splitNul(
    await git(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]),
  );
  for (const path of ignored.slice(0, MAX_IGNORED_LISTED))
    leftOut.push({ path, reason: "ignored by the repository (.gitignore)" });
  if (ignored.length > MAX_IGNORED_LISTED)
    leftOut.push({
      path: `${ignored.length - MAX_IGNORED_LISTED} more`,
      reason: "ignored by the repository (.gitignore)",
    });
  return { committed, leftOut };
}

function splitNul(output: string): string[] {
  return output.split("\0").filter((entry) => entry !== "");
}
