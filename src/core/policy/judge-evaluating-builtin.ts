import type { Verdict } from "./command-classification.js";
import { describeSubscript } from "./describe-subscript.js";
import { findNameTestProblem } from "./judge-test-arguments.js";
import { parseOptions, optionTable } from "./parse-options.js";
import type { ShellWord } from "./shell-word.js";

/** A builtin that runs text as code: its verdict, and the literal code to judge as a script. */
export interface EvaluatingBuiltin {
  readonly verdict: Verdict;
  readonly scripts: readonly { readonly text: string; readonly via: string }[];
}

/** bash 5.2's `read` options (`internal_getopt(list, "ersa:d:i:n:p:t:u:N:")`). */
export const READ_OPTIONS = optionTable("ersa:d:i:n:p:t:u:N:", "");

/** Builtins whose name arguments bash resolves with array subscripts, evaluated as arithmetic. */
const DECLARING = new Set(["declare", "typeset", "local", "export", "readonly", "unset"]);

function unparseable(reason: string): EvaluatingBuiltin {
  return { verdict: { classification: "unparseable", reason }, scripts: [] };
}

function notApproved(reason: string, scripts: EvaluatingBuiltin["scripts"] = []): EvaluatingBuiltin {
  return { verdict: { classification: "not_allowlisted", reason }, scripts };
}

function hidesSubscript(word: ShellWord): boolean {
  return !word.isLiteral || word.value.includes("[");
}

function subscriptReason(name: string, word: ShellWord): string {
  return describeSubscript(`${name} ${word.source}`, word);
}

/**
 * Builtins that evaluate text as code, or resolve names whose array subscripts bash evaluates
 * as arithmetic (`declare 'a[$(cmd)]=1'`, `wait -p 'a[$(cmd)]'` run `cmd`). Each was tried with
 * bash 5.2. They are never approved as read-only; where the code is literal it is judged as a
 * script too, so that `auto` still sees a destructive command inside, and where it is computed
 * (or hidden in a subscript) the command is `unparseable`. Undefined for other names.
 */
export function judgeEvaluatingBuiltin(
  name: string,
  args: readonly ShellWord[],
): EvaluatingBuiltin | undefined {
  if (DECLARING.has(name)) {
    const hidden = args.find(hidesSubscript);
    return hidden === undefined ? undefined : unparseable(subscriptReason(name, hidden));
  }
  switch (name) {
    case "let":
      return unparseable(
        "evaluates arithmetic (`let`), where array subscripts and variable values run hidden commands",
      );
    case "eval":
      return judgeCodeWords("eval", args, "evaluates its arguments as shell code");
    case "trap": {
      const computed = args.find((word) => !word.isLiteral);
      if (computed !== undefined) {
        return unparseable(
          `sets a command that bash runs on a signal (\`trap\`), and \`${computed.source}\` is computed at run time`,
        );
      }
      const parsed = parseOptions("trap", args, optionTable("lp", ""), { stopAtFirstOperand: true });
      const handler = parsed.success ? args[parsed.value.restIndex] : args[0];
      return handler === undefined || !parsed.success || parsed.value.options.length > 0
        ? notApproved("sets or lists the commands bash runs on signals (`trap`)")
        : judgeCodeWords(
            "trap",
            [handler],
            "sets a command that bash runs when a signal arrives or the shell exits",
          );
    }
    case "compgen":
    case "complete": {
      const index = args.findIndex((word) => word.value === "-C" || word.value === "-F");
      const code = index === -1 ? undefined : args[index + 1];
      if (code === undefined) {
        return notApproved(`changes or lists completions (\`${name}\`)`);
      }
      return name === "compgen" && (args[index] as ShellWord).value === "-C"
        ? judgeCodeWords("compgen -C", [code], "runs the given command to generate completions")
        : notApproved(
            `registers a command or function that bash runs for completion (\`${name} ${(args[index] as ShellWord).value}\`)`,
          );
    }
    case "alias": {
      const scripts: { text: string; via: string }[] = [];
      for (const word of args) {
        const equals = word.value.indexOf("=");
        if (equals === -1) {
          continue;
        }
        if (!word.isLiteral) {
          return unparseable(`defines an alias from \`${word.source}\`, which is computed at run time`);
        }
        scripts.push({ text: word.value.slice(equals + 1), via: "alias" });
      }
      return notApproved("defines an alias, which changes what a later command name runs", scripts);
    }
    case "printf": {
      const index = args.findIndex(
        (word) => word.value === "-v" || (word.value.startsWith("-v") && word.isLiteral),
      );
      const target = index === -1 ? undefined : args[index]?.value === "-v" ? args[index + 1] : args[index];
      return target !== undefined && hidesSubscript(target)
        ? unparseable(subscriptReason("printf -v", target))
        : undefined;
    }
    case "read": {
      const parsed = parseOptions("read", args, READ_OPTIONS, { stopAtFirstOperand: true });
      const hidden = (parsed.success ? args.slice(parsed.value.restIndex) : args).find(hidesSubscript);
      return hidden === undefined ? undefined : unparseable(subscriptReason(name, hidden));
    }
    case "getopts": {
      const target = args[1];
      return target !== undefined && hidesSubscript(target)
        ? unparseable(subscriptReason(name, target))
        : undefined;
    }
    case "test":
    case "[": {
      const problem = findNameTestProblem(name, args);
      return problem === undefined ? undefined : unparseable(problem);
    }
    case "wait": {
      const index = args.findIndex((word) => word.value === "-p");
      const target = index === -1 ? undefined : args[index + 1];
      return target !== undefined && hidesSubscript(target)
        ? unparseable(subscriptReason("wait -p", target))
        : undefined;
    }
    case "mapfile":
    case "readarray":
      return args.some((word) => /^-[^-]*C/.test(word.value))
        ? unparseable(`\`${name} -C\` runs a callback command for the lines it reads`)
        : notApproved(`fills an array (\`${name}\`)`);
    case "source":
    case ".": {
      const file = args[0];
      return file !== undefined && !file.isLiteral
        ? unparseable(`runs the commands in \`${file.source}\`, which is computed at run time (\`${name}\`)`)
        : notApproved(
            `runs the commands in the file \`${file?.source ?? ""}\` (\`${name}\`), whose contents are not checked`,
          );
    }
    case "enable":
      return notApproved("turns builtins on or off or loads them from a shared object (`enable`)");
    case "bind":
      return notApproved("binds keys to commands (`bind -x`) or changes line editing");
    case "shopt":
    case "set":
      return notApproved(`changes how bash reads or runs later commands (\`${name}\`)`);
    case "fc":
    case "history":
      return notApproved(`re-runs or writes the command history (\`${name}\`)`);
    case "hash":
      return notApproved("sets where bash finds commands (`hash`)");
    case "coproc":
      return notApproved("runs a coprocess (`coproc`)");
    default:
      return undefined;
  }
}

function judgeCodeWords(via: string, words: readonly ShellWord[], what: string): EvaluatingBuiltin {
  const computed = words.find((word) => !word.isLiteral);
  if (computed !== undefined) {
    return unparseable(`${what} (\`${via}\`), and \`${computed.source}\` is computed at run time`);
  }
  return notApproved(`${what} (\`${via}\`), which is never approved as read-only; write the command itself`, [
    { text: words.map((word) => word.value).join(" "), via },
  ]);
}
