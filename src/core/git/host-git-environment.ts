import path from "node:path";
import type { HostRepository } from "./host-repository.js";

/** A setting for one invocation, as `git -c key=value` would give it. */
export type GitSetting = readonly [key: string, value: string];

export interface GitAuthentication {
  /** The installation token; sent only as a header on requests to `remoteUrl`'s origin. */
  readonly token: string;
  readonly remoteUrl: string;
}

export interface HostGitEnvironmentOptions {
  readonly hostEnv: NodeJS.ProcessEnv;
  /** Named explicitly; without it (clone, init, version) git is kept from looking for one. */
  readonly repository?: HostRepository;
  readonly settings?: readonly GitSetting[];
  /** Given only to the one invocation that fetches or pushes. */
  readonly authentication?: GitAuthentication;
  /** The invocation talks to a remote: proxy settings are passed through. */
  readonly usesNetwork?: boolean;
}

/**
 * Host variables a git process may see. Built from an allowlist, never by removing names from the
 * host's environment: the App's private key, the model key, the webhook secret and the Redis URL
 * live there, and a program git starts (if ever one did) must learn nothing from it.
 */
const LOCALE_VARIABLES = ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ"];
/** Which certificates to trust; none of them can carry a credential. */
const CERTIFICATE_VARIABLES = [
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "CURL_CA_BUNDLE",
  "GIT_SSL_CAINFO",
  "GIT_SSL_CAPATH",
  "GIT_PROXY_SSL_CAINFO",
];
/** Only for invocations that reach a remote; a proxy URL may hold the proxy's own password. */
const PROXY_VARIABLES = [
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "ALL_PROXY",
  "all_proxy",
  "NO_PROXY",
  "no_proxy",
  "GIT_HTTP_PROXY_AUTHMETHOD",
];

/**
 * HOME and XDG_CONFIG_HOME point at a folder that does not exist: git finds no global config,
 * attributes or ignore file there, and curl no `.netrc` to send a password from.
 */
export const HOST_GIT_HOME = "/nonexistent/agentforge-git-home";

/**
 * Pinned for every host git, whatever a repository's own config says (environment config outranks
 * the repository's): no hooks, no file-system monitor, no global attributes or ignore files, no
 * stepping into submodules or nested repositories, no signing program, no credential helper, no
 * background maintenance, and only the transports the App uses.
 */
const PINNED_SETTINGS: readonly GitSetting[] = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["core.untrackedCache", "false"],
  ["core.attributesFile", "/dev/null"],
  ["core.excludesFile", "/dev/null"],
  ["core.pager", "cat"],
  ["core.editor", "false"],
  ["safe.bareRepository", "explicit"],
  ["submodule.recurse", "false"],
  ["diff.ignoreSubmodules", "all"],
  ["status.submoduleSummary", "false"],
  ["fetch.recurseSubmodules", "false"],
  ["push.recurseSubmodules", "no"],
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
  ["credential.helper", ""],
  ["protocol.allow", "never"],
  ["protocol.https.allow", "always"],
  ["protocol.http.allow", "always"],
  ["protocol.file.allow", "always"],
];

/** `Authorization: basic base64(x-access-token:TOKEN)`, the form GitHub accepts for app tokens. */
export function basicAuthorizationHeader(token: string): string {
  const encoded = Buffer.from(`x-access-token:${token}`, "utf8").toString("base64");
  return `Authorization: basic ${encoded}`;
}

/**
 * `scheme://host[:port]/` of a remote URL. The header is scoped to it, so a URL rewrite pointing
 * somewhere else never receives the token.
 */
export function originOf(remoteUrl: string): string | undefined {
  if (!URL.canParse(remoteUrl)) return undefined;
  const url = new URL(remoteUrl);
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  return `${url.protocol}//${url.host}/`;
}

/** PATH without relative entries, which would make git's helpers depend on the current folder. */
function absolutePath(value: string | undefined): string {
  const entries = (value ?? "").split(":").filter((entry) => path.isAbsolute(entry));
  return entries.length > 0 ? entries.join(":") : "/usr/local/bin:/usr/bin:/bin";
}

/** The whole environment of one host git process. */
export function buildHostGitEnvironment(options: HostGitEnvironmentOptions): Record<string, string> {
  const { hostEnv, repository } = options;
  const env: Record<string, string> = {};
  const passThrough = [
    ...LOCALE_VARIABLES,
    ...CERTIFICATE_VARIABLES,
    ...(options.usesNetwork === true || options.authentication !== undefined ? PROXY_VARIABLES : []),
  ];
  for (const name of passThrough) {
    const value = hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  env["PATH"] = absolutePath(hostEnv["PATH"]);
  env["HOME"] = HOST_GIT_HOME;
  env["XDG_CONFIG_HOME"] = HOST_GIT_HOME;
  env["GIT_CONFIG_NOSYSTEM"] = "1";
  env["GIT_CONFIG_GLOBAL"] = "/dev/null";
  env["GIT_ATTR_NOSYSTEM"] = "1";
  env["GIT_TERMINAL_PROMPT"] = "0";
  env["GIT_NO_REPLACE_OBJECTS"] = "1";
  if (repository !== undefined) {
    env["GIT_DIR"] = repository.gitDirectory;
    if (repository.workTree !== undefined) env["GIT_WORK_TREE"] = repository.workTree;
  }
  const settings: GitSetting[] = [...PINNED_SETTINGS];
  // safe.directory is read from protected config only (this is one): the App's own folders.
  if (repository !== undefined) {
    settings.push(["safe.directory", repository.gitDirectory]);
    if (repository.workTree !== undefined) settings.push(["safe.directory", repository.workTree]);
  }
  settings.push(...(options.settings ?? []));
  const origin =
    options.authentication === undefined ? undefined : originOf(options.authentication.remoteUrl);
  if (options.authentication !== undefined && origin !== undefined) {
    // Environment, not `-c`: a command line is readable by every user of the host in /proc.
    settings.push([`http.${origin}.extraHeader`, basicAuthorizationHeader(options.authentication.token)]);
  }
  env["GIT_CONFIG_COUNT"] = String(settings.length);
  settings.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}
