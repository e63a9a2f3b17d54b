import type { ShellWord } from "./shell-word.js";
import type { UnwrapResult } from "./unwrap-command.js";

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"]);

type ShellInvocation =
  | { readonly mode: "string"; readonly script: ShellWord | undefined }
  | { readonly mode: "file"; readonly file: ShellWord }
  | { readonly mode: "stdin" }
  | { readonly mode: "computed"; readonly word: ShellWord }
  | { readonly mode: "startup-file"; readonly option: string };

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
    if (value.startsWith("--")) {
      if (value === "--rcfile" || value === "--init-file") {
        return { mode: "startup-file", option: value };
      }
      index += 1;
      continue;
    }
    if (!/^[-+][A-Za-z]+$/.test(value)) {
      break;
    }
    const letters = value.slice(1);
    hasCommandString ||= letters.includes("c");
    readsStandardInput ||= letters.includes("s");
    index += letters.includes("o") || letters.includes("O") ? 2 : 1;
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
        reason: `runs \`${name}\` with a startup file (\`${invocation.option}\`)`,
      };
    case "file":
      return {
        kind: "verdict",
        classification: "not_allowlisted",
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
      return { kind: "script", via: `${name} -c`, script: script.value };
    }
  }
}

/** True when a shell with these arguments executes whatever arrives on its standard input. */
export function shellReadsStandardInput(args: readonly ShellWord[]): boolean {
  return readShellInvocation(args).mode === "stdin";
}
