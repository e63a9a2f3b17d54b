import type { Verdict } from "./command-classification.js";
import { judgeRedirect, REDIRECT_TYPES, type RedirectCallbacks } from "./judge-redirect.js";
import type { BashNode } from "./load-bash-parser.js";
import { readCommandNode, type CommandNodeReading } from "./read-command-node.js";
import { judgeSubscript, scanWord } from "./scan-word.js";
import { evaluateWord, type ShellWord } from "./shell-word.js";

export interface SimpleCommandReading {
  readonly reading: CommandNodeReading;
  readonly words: readonly ShellWord[];
  readonly wordNodes: readonly BashNode[];
  /** Names assigned before the command (`NAME=value cmd`), subscripts taken off. */
  readonly assignmentNames: readonly string[];
  readonly redirects: readonly BashNode[];
  /** What makes the command's parts unreadable or unsafe, whatever it runs. */
  readonly problems: Verdict[];
}

/**
 * Reads one simple command: its assignments (a subscript in a name is evaluated as arithmetic),
 * its words (each scanned for substitutions and evaluated without running anything) and its
 * redirections (opened before the command runs, in the folder it starts in).
 */
export function readSimpleCommand(
  node: BashNode,
  extraRedirects: readonly BashNode[],
  callbacks: RedirectCallbacks,
  scanChildren: (node: BashNode) => Verdict[],
): SimpleCommandReading {
  const reading = readCommandNode(node);
  const problems: Verdict[] = [];
  for (const stray of reading.strayNodes) {
    problems.push({
      classification: "unparseable",
      reason: `has \`${stray.text}\`, which the policy cannot place`,
    });
  }
  const assignmentNames: string[] = [];
  for (const assignment of reading.assignments) {
    const name = assignment.childForFieldName("name");
    if (name?.type === "subscript") {
      problems.push(...judgeSubscript(name));
    }
    assignmentNames.push((name?.type === "subscript" ? name.childForFieldName("name") : name)?.text ?? "");
    problems.push(...scanChildren(assignment));
  }
  const redirects = [...reading.redirects, ...extraRedirects];
  problems.push(...judgeNamedDescriptors(reading.args, redirects));
  const wordNodes = reading.name === undefined ? reading.args : [reading.name, ...reading.args];
  const words: ShellWord[] = [];
  for (const wordNode of wordNodes) {
    problems.push(...scanWord(wordNode, callbacks.onSubstitution));
    const evaluated = evaluateWord(wordNode);
    if (evaluated.success) {
      words.push(evaluated.value);
    } else {
      problems.push({ classification: "unparseable", reason: evaluated.error });
    }
  }
  // Redirections are opened before the command runs, in the folder it starts in.
  for (const redirect of redirects) {
    if (REDIRECT_TYPES.has(redirect.type)) {
      problems.push(...judgeRedirect(redirect, callbacks));
    } else {
      problems.push({
        classification: "unparseable",
        reason: `has \`${redirect.text}\`, which the parser could not read`,
      });
    }
  }
  return { reading, words, wordNodes, assignmentNames, redirects, problems };
}

/** `{fd}>file` opens a descriptor whose number bash stores in a variable; the parser reads `{fd}` as a word. */
function judgeNamedDescriptors(args: readonly BashNode[], redirects: readonly BashNode[]): Verdict[] {
  return args
    .filter(
      (arg) =>
        /^\{[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\}$/.test(arg.text) &&
        redirects.some((redirect) => redirect.startIndex === arg.endIndex),
    )
    .map((arg) => ({
      classification: "unparseable",
      reason: `opens a file on a descriptor named by the variable in \`${arg.text}\`, which the parser reads as a word`,
    }));
}
