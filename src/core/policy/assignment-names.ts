/**
 * Variables a read-only command may be run with (`LC_ALL=C sort`): they change formatting,
 * never which program runs or which files are read as configuration.
 */
const HARMLESS_NAMES = new Set([
  "LANG",
  "LANGUAGE",
  "TZ",
  "NO_COLOR",
  "FORCE_COLOR",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "TERM",
  "COLUMNS",
  "LINES",
  "CI",
  "GIT_PAGER_IN_USE",
]);

/**
 * Variables that change which program runs, what it loads or which config it obeys. Setting
 * one makes even an allow-listed command not allow-listed.
 */
const SENSITIVE_PATTERNS: readonly RegExp[] = [
  /^(PATH|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|CDPATH|GLOBIGNORE|HOME|SHELL|BROWSER)$/,
  /^BASH_FUNC_/,
  /^(LD|DYLD)_/,
  /^GIT_/,
  /^XDG_/,
  /^(PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|LESS)$/,
  /_PAGER$/,
  /^NODE_(OPTIONS|PATH)$/,
  /^PYTHON/,
  /^(PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS)$/,
  /^(GCONV_PATH|LOCPATH|NLSPATH|HOSTALIASES|MALLOC_.*|GREP_OPTIONS|RIPGREP_CONFIG_PATH|TMPDIR)$/,
  /^(npm_config_|NPM_CONFIG_)/,
  /^SSH_/,
];

export function isHarmlessAssignmentName(name: string): boolean {
  return HARMLESS_NAMES.has(name) || /^LC_[A-Z]+$/.test(name);
}

export function isSensitiveAssignmentName(name: string): boolean {
  return SENSITIVE_PATTERNS.some((pattern) => pattern.test(name));
}

/**
 * Names a command line may assign as plain shell variables (`x=1`, `read x`, `for x in …`).
 * Every variable bash itself reads (IFS, PATH, PS4, BASH_ENV, SHELLOPTS, POSIXLY_CORRECT, …)
 * is upper case, and lower-case names are not in the sandbox's environment, so assigning one
 * changes nothing but the variable; the harmless upper-case names are allowed too.
 */
export function isAssignableName(name: string): boolean {
  return (
    (/^[a-z_][a-z0-9_]*$/.test(name) && !isSensitiveAssignmentName(name)) || isHarmlessAssignmentName(name)
  );
}

/** Variables whose value bash itself expands or runs as code: prompts, PROMPT_COMMAND, startup files. */
export function isCodeVariableName(name: string): boolean {
  return /^(PS[0-4]|PROMPT_COMMAND|BASH_ENV|ENV)$/.test(name);
}
