import { SandboxError } from "./sandbox-error.js";

/** Host variables that describe the locale and the CI context; none of them can carry a credential. */
const PASSED_THROUGH = ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "CI"] as const;

const SECRET_NAME =
  /(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|_KEY$|^KEY$|APIKEY|API_KEY|AUTH(?!OR)|COOKIE|SESSION)/i;
/** Connection strings routinely embed a password. */
const SECRET_NAMES = new Set(["REDIS_URL", "DATABASE_URL", "MONGODB_URI", "AMQP_URL", "NPM_CONFIG__AUTH"]);
const SECRET_VALUE = /^(gh[pousr]_|github_pat_|sk-|xox[abpr]-|AKIA|-----BEGIN)|:\/\/[^/\s:@]+:[^/\s@]+@/;

/**
 * Git inside the sandbox obeys no program a repository names: a folder committed to look like a
 * bare repository is not taken for one when git looks for a repository (`safe.bareRepository` is
 * only read from protected config, which environment config is), and no repository's config can
 * start a file-system monitor or hooks. Environment config outranks every config file, so a
 * repository's own settings cannot undo these.
 */
export const SANDBOX_GIT_SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ["safe.bareRepository", "explicit"],
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.untrackedCache", "false"],
  // The index was written by the host, whose owner the sandbox's user cannot match, and the sandbox
  // cannot rewrite it (read-only): without this every status and diff would read every file again.
  ["core.checkStat", "minimal"],
];

function sandboxGitEnvironment(): Record<string, string> {
  const environment: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_COUNT: String(SANDBOX_GIT_SETTINGS.length),
  };
  SANDBOX_GIT_SETTINGS.forEach(([key, value], index) => {
    environment[`GIT_CONFIG_KEY_${index}`] = key;
    environment[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return environment;
}

/** Fixed in the sandbox whatever the host says. */
export const SANDBOX_HOME = "/home/sandbox";
export const SANDBOX_USER = "nobody";
export const DEFAULT_SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) || SECRET_NAMES.has(name.toUpperCase());
}

export function looksLikeSecretValue(value: string): boolean {
  return SECRET_VALUE.test(value);
}

export interface SandboxEnvironmentOptions {
  readonly hostEnv: NodeJS.ProcessEnv;
  /** PATH inside the sandbox (only directories that are mounted). */
  readonly path: string;
  /** Names the operator allowed; values are copied from the host. */
  readonly allowedNames?: readonly string[];
  /** Values the operator set for this run. */
  readonly extra?: Readonly<Record<string, string>>;
  readonly home?: string;
  readonly tmp?: string;
}

/**
 * Builds the whole environment of a sandboxed command from an allowlist. Nothing is inherited:
 * the caller starts the command with an empty environment and sets exactly these.
 * Names or values that look like credentials are refused even when the operator lists them,
 * because the security model promises that no token enters the sandbox.
 */
export function buildSandboxEnvironment(options: SandboxEnvironmentOptions): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = options.hostEnv[name];
    if (value !== undefined && !looksLikeSecretValue(value)) environment[name] = value;
  }
  for (const name of options.allowedNames ?? []) {
    const value = options.hostEnv[name];
    if (value === undefined) continue;
    assertNotSecret(name, value);
    environment[name] = value;
  }
  for (const [name, value] of Object.entries(options.extra ?? {})) {
    assertNotSecret(name, value);
    environment[name] = value;
  }
  return {
    ...environment,
    ...sandboxGitEnvironment(),
    PATH: options.path,
    HOME: options.home ?? SANDBOX_HOME,
    USER: SANDBOX_USER,
    LOGNAME: SANDBOX_USER,
    TMPDIR: options.tmp ?? "/tmp",
    TERM: "dumb",
    NO_COLOR: "1",
  };
}

function assertNotSecret(name: string, value: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new SandboxError(
      "SANDBOX_ENV_REFUSED",
      `${JSON.stringify(name)} is not a valid environment variable name.`,
      "Use letters, digits and underscores only.",
    );
  }
  if (isSecretName(name) || looksLikeSecretValue(value)) {
    throw new SandboxError(
      "SANDBOX_ENV_REFUSED",
      `The environment variable ${name} looks like a credential and is never passed into the sandbox.`,
      `Remove ${name} from the sandbox environment settings; commands in the sandbox must work without secrets.`,
    );
  }
}
