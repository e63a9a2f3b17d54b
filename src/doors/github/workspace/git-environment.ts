/**
 * The environment every git process of the App runs with. It is built from scratch rather than
 * inherited: the host's global and system git config could name a credential helper, a URL
 * rewrite or a proxy command, and an inherited `GIT_DIR` or `GIT_CURL_VERBOSE` would change what
 * git does or print the token. Only certificate settings are kept from the host.
 */

/** Host variables git may keep: they only say which certificates to trust. */
const INHERITED_GIT_VARIABLES = new Set([
  "GIT_SSL_CAINFO",
  "GIT_SSL_CAPATH",
  "GIT_PROXY_SSL_CAINFO",
  "GIT_HTTP_PROXY_AUTHMETHOD",
]);

/** Variables an editor or pager reads; git must never open one in a server. */
const INTERACTIVE_VARIABLES = new Set(["EDITOR", "VISUAL", "PAGER", "PREFIX", "SSH_ASKPASS"]);

export interface GitAuthentication {
  /** The installation token; sent only as a header on requests to `remoteUrl`'s origin. */
  readonly token: string;
  readonly remoteUrl: string;
}

export interface GitEnvironment {
  readonly env: Record<string, string>;
  /** The guarded names in `env`, which simple-git refuses unless they are listed. */
  readonly allowedNames: readonly string[];
}

/** `Authorization: basic base64(x-access-token:TOKEN)`, the form GitHub accepts for app tokens. */
export function basicAuthorizationHeader(token: string): string {
  const encoded = Buffer.from(`x-access-token:${token}`, "utf8").toString("base64");
  return `Authorization: basic ${encoded}`;
}

/**
 * `scheme://host[:port]/` of a remote URL. The header is scoped to it, so a URL rewrite
 * (`url.*.insteadOf`) pointing somewhere else never receives the token.
 */
export function originOf(remoteUrl: string): string | undefined {
  if (!URL.canParse(remoteUrl)) return undefined;
  const url = new URL(remoteUrl);
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  return `${url.protocol}//${url.host}/`;
}

/** A setting for this one invocation, as `git -c key=value` would give it. */
export type GitSetting = readonly [key: string, value: string];

export function buildGitEnvironment(
  hostEnv: NodeJS.ProcessEnv,
  authentication?: GitAuthentication,
  settings: readonly GitSetting[] = [],
): GitEnvironment {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(hostEnv)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (upper.startsWith("GIT_") && !INHERITED_GIT_VARIABLES.has(upper)) continue;
    if (INTERACTIVE_VARIABLES.has(upper)) continue;
    env[name] = value;
  }
  // Never ask on a terminal that does not exist: a missing or wrong token fails at once.
  env["GIT_TERMINAL_PROMPT"] = "0";
  env["GIT_CONFIG_NOSYSTEM"] = "1";
  env["GIT_CONFIG_GLOBAL"] = "/dev/null";
  const configuration: GitSetting[] = [
    // A task never needs its commits signed by the host's key or a maintenance job in the background.
    ["commit.gpgSign", "false"],
    ["gc.auto", "0"],
    ["maintenance.auto", "false"],
    // Environment config reaches every git this one starts: no file-system monitor program, no
    // recursing into submodules (callers also refuse to run with nested repositories present).
    ["core.fsmonitor", "false"],
    ["submodule.recurse", "false"],
    ...settings,
  ];
  const origin = authentication === undefined ? undefined : originOf(authentication.remoteUrl);
  if (authentication !== undefined && origin !== undefined) {
    // Environment, not `-c`: a command line is readable by every user of the host in /proc.
    configuration.push([`http.${origin}.extraHeader`, basicAuthorizationHeader(authentication.token)]);
  }
  env["GIT_CONFIG_COUNT"] = String(configuration.length);
  configuration.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  const allowedNames = Object.keys(env).filter((name) => name.toUpperCase().startsWith("GIT_"));
  return { env, allowedNames };
}
