import { simpleGit, type SimpleGit } from "simple-git";
import { buildGitEnvironment, type GitAuthentication, type GitSetting } from "./git-environment.js";

export interface CreateGitOptions {
  readonly baseDirectory: string;
  /** Only for the one invocation that fetches or pushes. */
  readonly authentication?: GitAuthentication;
  readonly signal?: AbortSignal;
  readonly settings?: readonly GitSetting[];
  readonly hostEnv?: NodeJS.ProcessEnv;
}

/**
 * simple-git treats a non-zero exit with nothing on stderr as success; `check-ref-format` and
 * `rev-parse --verify --quiet` fail exactly that way, so every non-zero exit is an error here.
 */
function failOnNonZeroExit(
  error: Buffer | Error | undefined,
  result: { readonly exitCode: number; readonly stdErr: Buffer[] },
): Buffer | Error | undefined {
  if (error !== undefined) return error;
  if (result.exitCode === 0) return undefined;
  return Buffer.concat([...result.stdErr, Buffer.from(`git exited with code ${result.exitCode}`)]);
}

/**
 * A simple-git instance for one directory with the App's controlled environment. simple-git
 * waits 50 ms after a child that printed nothing, so callers leave out `--quiet` where git would
 * otherwise say something: a checkout runs five or six git commands.
 */
export function createGit(options: CreateGitOptions): SimpleGit {
  const { env, allowedNames } = buildGitEnvironment(
    options.hostEnv ?? process.env,
    options.authentication,
    options.settings,
  );
  const git = simpleGit({
    baseDir: options.baseDirectory,
    allowEnvironment: allowedNames,
    // The config variables are ours (see buildGitEnvironment), never taken from a repository or a
    // user; the hooks path is only ever set to /dev/null, to switch hooks off, and the file-system
    // monitor only ever to false, to switch it off.
    unsafe: {
      allowUnsafeConfigEnvCount: true,
      allowUnsafeConfigPaths: true,
      allowUnsafeHooksPath: true,
      allowUnsafeFsMonitor: true,
    },
    errors: failOnNonZeroExit,
    ...(options.signal === undefined ? {} : { abort: options.signal }),
  });
  return git.env(env);
}
