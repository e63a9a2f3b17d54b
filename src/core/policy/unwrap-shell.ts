import type { ShellWord } from "./shell-word.js";
import type { UnwrapResult } from "./unwrap-command.js";

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"]);

/**
 * How a command string is read: `bash` as bash 5.2, `posix` for dash (this system's `sh`), in
 * which bash-only syntax means something else (`$'…'` is `$` and a quoted string, `&>` puts the
 * command in the background) and is refused.
 */
export type ShellDialect = "bash" | "posix";

const DIALECTS: Readonly<Record<string, ShellDialect>> = { bash: "bash", sh: "posix", dash: "posix" };
/** Single-letter options that change neither how the command string is read nor what runs first. */
const HARMLESS_LETTERS = /^[-+][ceuxvfn]+$/;
const HARMLESS_SET_OPTIONS = new Set([
  "errexit",
  "nounset",
  "pipefail",
  "xtrace",
  "verbose",
  "noglob",
  "noexec",
]);

type ShellInvocation =
  | { readonly mode: "string"; readonly script: ShellWord | undefined }
  | { readonly mode: "file"; readonly file: ShellWord }
  | { readonly mode: "stdin" }
  | { readonly mode: "computed"; readonly word: ShellWord }
  | { readonly mode: "startup-file"; readonly option: string }
  | { readonly mode: "unmodelled"; readonly option: string };

/** Reads `bash [options] -c STRING`, `bash FILE` and `bash` reading standard input. */
function readShellInvocation(args: readonly ShellWord[]): ShellInvocation {
  let index = 0;
  let hasCommandString = false;
  let readsStandardInput = false;
  while (index < args.length) {
    const word = args[index] as ShellWord;
    if (!word.isLiteral) {
      return { mode: "computed", word };
    }
    const value = word.value;
    if (value === "--" || value === "-") {
      index += 1;
      break;
    }
    if (value === "--rcfile" || value === "--init-file" || value === "-l" || value === "--login") {
      return { mode: "startup-file", option: value };
    }
    if (value === "--norc" || value === "--noprofile") {
      index += 1;
      continue;
    }
    if (/^[-+][ceuxvfn]*o$/.test(value)) {
      // `-o NAME`, also at the end of a cluster (`-euo pipefail`).
      hasCommandString ||= value.startsWith("-") && value.includes("c");
      const setting = args[index + 1];
      if (setting === undefined || !setting.isLiteral || !HARMLESS_SET_OPTIONS.has(setting.value)) {
        return { mode: "unmodelled", option: `${value} ${setting?.source ?? ""}`.trim() };
      }
      index += 2;
      continue;
    }
    if (!value.startsWith("-") && !value.startsWith("+")) {
      break;
    }
    if (/^-[ceuxvfns]+$/.test(value) || HARMLESS_LETTERS.test(value)) {
      hasCommandString ||= value.startsWith("-") && value.includes("c");
      readsStandardInput ||= value.startsWith("-") && value.includes("s");
      index += 1;
      continue;
    }
    // `-i` (aliases, history expansion), `-O extglob`, `--posix`, `-r` and the rest change how
    // the string is read or what runs before it.
    return { mode: "unmodelled", option: value };
  }
  if (hasCommandString) {
    return { mode: "string", script: args[index] };
  }
  const file = args[index];
  return file !== undefined && !readsStandardInput ? { mode: "file", file } : { mode: "stdin" };
}

export function unwrapShell(name: string, args: readonly ShellWord[]): UnwrapResult {
  const invocation = readShellInvocation(args);
  switch (invocation.mode) {
    case "computed":
      return {
        kind: "verdict",
        classification: "unparseable",
        reason: `passes the computed word \`${invocation.word.source}\` to \`${name}\``,
      };
    case "startup-file":
      return {
        kind: "verdict",
        classification: "not_allowlisted",
        reason: `runs \`${name}\` with startup files (\`${invocation.option}\`)`,
      };
    case "unmodelled":
      return {
        kind: "verdict",
        classification: "unparseable",
        reason: `runs \`${name}\` with \`${invocation.option}\`, which changes how it reads commands in a way the policy does not model`,
      };
    case "file":
      return {
        kind: "verdict",
        classification: invocation.file.isLiteral ? "not_allowlisted" : "unparseable",
        reason: `runs the script file \`${invocation.file.source}\` with \`${name}\`, whose contents are not checked`,
      };
    case "stdin":
      return {
        kind: "verdict",
        classification: "not_allowlisted",
        reason: `runs \`${name}\` on commands read from its standard input`,
      };
    case "string": {
      const script = invocation.script;
      if (script === undefined) {
        return {
          kind: "verdict",
          classification: "unparseable",
          reason: `runs \`${name} -c\` without a command string`,
        };
      }
      if (!script.isLiteral) {
        return {
          kind: "verdict",
          classification: "unparseable",
          reason: `runs a command string that is computed at run time (\`${script.source}\`) with \`${name} -c\``,
        };
      }
      const dialect = DIALECTS[name];
      if (dialect === undefined) {
        return {
          kind: "verdict",
          classification: "unparseable",
          reason: `runs a command string with \`${name}\`, whose syntax differs from bash's in ways the policy does not model`,
        };
      }
      return { kind: "script", via: `${name} -c`, script: script.value, dialect };
    }
  }
}

/** True when a shell with these arguments executes whatever arrives on its standard input. */
export function shellReadsStandardInput(args: readonly ShellWord[]): boolean {
  return readShellInvocation(args).mode === "stdin";
}
