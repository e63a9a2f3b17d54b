import { execFile } from "node:child_process";
import {
  buildHostGitEnvironment,
  basicAuthorizationHeader,
  type GitAuthentication,
  type GitSetting,
} from "./host-git-environment.js";
import { HostGitError } from "./host-git-error.js";
import { assertHostOwnedRepository, type HostRepository } from "./host-repository.js";

export interface HostGitOptions {
  /** More settings of the harness's own (an identity, a quoting rule), never a repository's or the model's. */
  readonly settings?: readonly GitSetting[];
  /** Only for the one invocation that fetches or pushes. */
  readonly authentication?: GitAuthentication;
  /** The invocation reaches a remote (clone, fetch, push): proxy settings are passed through. */
  readonly usesNetwork?: boolean;
  /** Written to git's standard input. */
  readonly input?: string | Buffer;
  readonly maxBuffer?: number;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly hostEnv?: NodeJS.ProcessEnv;
  /** Where git starts; defaults to the work tree, or the git directory. */
  readonly cwd?: string;
}

export interface HostGitOutput<Output> {
  readonly stdout: Output;
  readonly stderr: string;
}

const DEFAULT_MAX_BUFFER = 64 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/**
 * The one way the harness runs git on the host. The repository is named explicitly (git directory
 * and work tree), its git directory must be one no sandbox can write, and the process gets an
 * environment built from an allowlist with every setting that could start a program pinned off.
 * `null` is for the commands that make a repository (clone, init) or need none (version): git is
 * then told not to look for one.
 */
export async function runHostGit(
  repository: HostRepository | null,
  args: readonly string[],
  options: HostGitOptions = {},
): Promise<HostGitOutput<string>> {
  const output = await spawnHostGit(repository, args, options);
  return { stdout: output.stdout.toString("utf8"), stderr: output.stderr };
}

/** As runHostGit, with standard output kept as bytes (patches, blobs). */
export async function runHostGitForBuffer(
  repository: HostRepository | null,
  args: readonly string[],
  options: HostGitOptions = {},
): Promise<HostGitOutput<Buffer>> {
  return spawnHostGit(repository, args, options);
}

export interface HostGitExit {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * For commands whose non-zero exit is an answer, not a failure (`git apply --check`): resolves
 * with the exit status and both outputs. Failing to run git at all still throws a HostGitError.
 */
export async function runHostGitForExit(
  repository: HostRepository | null,
  args: readonly string[],
  options: HostGitOptions = {},
): Promise<HostGitExit> {
  try {
    const { stdout, stderr } = await spawnHostGit(repository, args, options);
    return { exitCode: 0, stdout: stdout.toString("utf8"), stderr };
  } catch (error) {
    if (error instanceof HostGitError && error.code === "GIT_FAILED" && error.exitCode !== undefined)
      return { exitCode: error.exitCode, stdout: error.stdout, stderr: error.stderr };
    throw error;
  }
}

async function spawnHostGit(
  repository: HostRepository | null,
  args: readonly string[],
  options: HostGitOptions,
): Promise<HostGitOutput<Buffer>> {
  if (repository !== null) await assertHostOwnedRepository(repository);
  const env = buildHostGitEnvironment({
    hostEnv: options.hostEnv ?? process.env,
    ...(repository === null ? {} : { repository }),
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.authentication === undefined ? {} : { authentication: options.authentication }),
    ...(options.usesNetwork === undefined ? {} : { usesNetwork: options.usesNetwork }),
  });
  if (repository === null) {
    // No folder above the current one (a host folder of the App's) is taken for a repository.
    env["GIT_CEILING_DIRECTORIES"] = "/";
  }
  const cwd = options.cwd ?? repository?.workTree ?? repository?.gitDirectory ?? "/";
  const token = options.authentication?.token;
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      args,
      {
        cwd,
        env,
        encoding: "buffer",
        maxBuffer: options.maxBuffer ?? DEFAULT_MAX_BUFFER,
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        killSignal: "SIGKILL",
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      (error, stdout, stderrBytes) => {
        const stderr = redactToken(stderrBytes.toString("utf8"), token);
        if (error === null) {
          resolve({ stdout, stderr });
          return;
        }
        reject(toHostGitError(error, args, { stdout: stdout.toString("utf8"), stderr }, options.signal));
      },
    );
    child.stdin?.on("error", () => {
      // git may exit before reading its input (a failed check); the exit status says why.
    });
    child.stdin?.end(options.input ?? "");
  });
}

function toHostGitError(
  error: Error & { code?: unknown; killed?: boolean; signal?: unknown },
  args: readonly string[],
  output: { readonly stdout: string; readonly stderr: string },
  signal: AbortSignal | undefined,
): HostGitError {
  const { stderr } = output;
  const what = `git ${args.find((arg) => !arg.startsWith("-")) ?? args[0] ?? ""}`.trim();
  if (error.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER")
    return new HostGitError("GIT_FAILED", `${what} printed more than the harness reads and was stopped`, {
      cause: error,
    });
  if (error.code === "ENOENT")
    return new HostGitError("GIT_NOT_FOUND", "git is not installed on this machine (no `git` on PATH)", {
      cause: error,
    });
  if (signal?.aborted === true || error.name === "AbortError")
    return new HostGitError("GIT_CANCELLED", `${what} was cancelled`, { cause: error });
  if (error.killed === true && typeof error.code !== "number")
    return new HostGitError("GIT_TIMEOUT", `${what} did not finish in time and was killed`, { cause: error });
  const exitCode = typeof error.code === "number" ? error.code : undefined;
  const detail = stderr.trim().split("\n").slice(-8).join("\n");
  return new HostGitError(
    "GIT_FAILED",
    `${what} failed${exitCode === undefined ? "" : ` (exit ${exitCode})`}${detail === "" ? "" : `: ${detail}`}`,
    { ...(exitCode === undefined ? {} : { exitCode }), stderr, stdout: output.stdout },
  );
}

/** Removes the token, and the header made from it, from what git printed. */
export function redactToken(text: string, token: string | undefined): string {
  if (token === undefined || token.length === 0) return text;
  const header = basicAuthorizationHeader(token);
  const encoded = header.slice(header.indexOf("basic ") + "basic ".length);
  return text
    .split(header)
    .join("[REDACTED]")
    .split(encoded)
    .join("[REDACTED]")
    .split(token)
    .join("[REDACTED]");
}
