import type { Verdict } from "./command-classification.js";
import type { BashNode } from "./load-bash-parser.js";
import { readCommandNode } from "./read-command-node.js";
import { evaluateWord, type ShellWord } from "./shell-word.js";
import { findEffectiveCommand } from "./unwrap-command.js";
import { SHELLS, shellReadsStandardInput } from "./unwrap-shell.js";

const DOWNLOADERS = new Set(["curl", "wget"]);
const INTERPRETERS = new Set(["python", "python3", "perl", "ruby", "node", "php"]);
const SCRIPT_RUNNERS = new Set([...SHELLS, ...INTERPRETERS, "source", ".", "eval"]);

/** `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(wget -O- …)"`: code fetched from the network is run. */
export function describeDownloadedScript(node: BashNode, words: readonly ShellWord[]): Verdict[] {
  const effective = findEffectiveCommand(words)[0];
  if (effective === undefined || !SCRIPT_RUNNERS.has(baseName(effective.value))) {
    return [];
  }
  const downloader = findDownloader(node);
  return downloader === undefined
    ? []
    : [
        {
          classification: "dangerous",
          reason: `runs code downloaded by \`${downloader}\` with \`${baseName(effective.value)}\``,
        },
      ];
}

/** `curl … | sh`, `wget -O- … | sudo bash`: a download piped into a shell or interpreter. */
export function describeDownloadIntoShell(pipeline: BashNode): Verdict | undefined {
  const stages = pipeline.namedChildren;
  for (const [index, stage] of stages.entries()) {
    const command = stage.type === "redirected_statement" ? stage.childForFieldName("body") : stage;
    if (index === 0 || command?.type !== "command") {
      continue;
    }
    const effective = findEffectiveCommand(readWords(command));
    const name = baseName(effective[0]?.value ?? "");
    const args = effective.slice(1);
    const runsInput =
      (SHELLS.has(name) && shellReadsStandardInput(args)) ||
      (INTERPRETERS.has(name) && args.every((word) => word.value.startsWith("-")));
    const downloader = runsInput
      ? stages
          .slice(0, index)
          .map(findDownloader)
          .find((found) => found !== undefined)
      : undefined;
    if (downloader !== undefined) {
      return {
        classification: "dangerous",
        reason: `pipes a download from \`${downloader}\` into \`${name}\`, running code from the network`,
      };
    }
    if (runsInput && SHELLS.has(name)) {
      // The commands are in this line, but as data the policy does not parse (`echo 'rm -rf ~' | sh`).
      return {
        classification: "unparseable",
        reason: `pipes the output of an earlier command into \`${name}\`, which runs it as shell commands the policy cannot see`,
      };
    }
  }
  return undefined;
}

/** `sh <<EOF`, `bash <<< 'cmd'`: a shell running text of this line that the policy does not parse. */
export function describeShellReadingInput(
  words: readonly ShellWord[],
  redirects: readonly BashNode[],
): Verdict[] {
  const effective = findEffectiveCommand(words);
  const name = baseName(effective[0]?.value ?? "");
  const feedsInput = redirects.some(
    (redirect) => redirect.type === "heredoc_redirect" || redirect.type === "herestring_redirect",
  );
  return SHELLS.has(name) && feedsInput && shellReadsStandardInput(effective.slice(1))
    ? [
        {
          classification: "unparseable",
          reason: `feeds a here-document or here-string to \`${name}\`, which runs it as shell commands the policy cannot see`,
        },
      ]
    : [];
}

function readWords(command: BashNode): ShellWord[] {
  const reading = readCommandNode(command);
  return (reading.name === undefined ? [] : [reading.name, ...reading.args])
    .map(evaluateWord)
    .flatMap((result) => (result.success ? [result.value] : []));
}

function baseName(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

/** The name of a downloader (`curl`, `wget`) run anywhere inside `node`, wrappers looked through. */
function findDownloader(node: BashNode): string | undefined {
  const commands =
    node.type === "command"
      ? [node, ...node.descendantsOfType("command")]
      : node.descendantsOfType("command");
  for (const command of commands) {
    const name = baseName(findEffectiveCommand(readWords(command))[0]?.value ?? "");
    if (DOWNLOADERS.has(name)) {
      return name;
    }
  }
  return undefined;
}
