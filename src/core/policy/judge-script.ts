import { findWorstVerdict, type CommandPart, type Verdict } from "./command-classification.js";
import { judgeRedirect, REDIRECT_TYPES, type RedirectCallbacks } from "./judge-redirect.js";
import { judgeWords } from "./judge-words.js";
import type { BashNode, BashParser } from "./load-bash-parser.js";
import { describeDownloadedScript, describeDownloadIntoShell } from "./detect-downloaded-code.js";
import { judgeFunctionDefinition } from "./judge-function-definition.js";
import {
  judgeAssignmentNames,
  judgeAssignmentStatement,
  judgeDeclarationCommand,
  judgeTestCommand,
} from "./judge-variable-statements.js";
import { readCommandNode } from "./read-command-node.js";
import { scanWord } from "./scan-word.js";
import { evaluateWord, type ShellWord } from "./shell-word.js";

export interface ScriptContext {
  readonly parser: BashParser;
  readonly allowPrefixes: readonly (readonly string[])[];
  /** How many command strings (`bash -c`, `eval`) deep this script is. */
  readonly depth: number;
  /** Variables set for the whole script by whoever runs it (`PATH=x bash -c '...'`). */
  readonly inheritedAssignments: readonly string[];
  /** The wrapper that runs this script, named in reasons. */
  readonly via?: string;
}

const MAX_SCRIPT_DEPTH = 6;

/** Statement nodes whose named children are statements to walk. */
const CONTAINER_TYPES = new Set([
  "program",
  "list",
  "do_group",
  "else_clause",
  "elif_clause",
  "if_statement",
  "while_statement",
  "subshell",
  "negated_command",
]);

/** Parses a command line and judges every command it would run, in source order. */
export function judgeScript(script: string, context: ScriptContext): CommandPart[] {
  if (context.depth > MAX_SCRIPT_DEPTH) {
    return [
      {
        command: script,
        words: [],
        classification: "unparseable",
        reason: "nests command strings too deeply to judge",
      },
    ];
  }
  return context.parser.parse(script, (root) => new ScriptWalker(context, root).run());
}

class ScriptWalker {
  private readonly parts: CommandPart[] = [];
  private readonly functionNames: Set<string>;
  private readonly callbacks: RedirectCallbacks = {
    onSubstitution: (node) => this.walkNamedChildren(node),
    onStatement: (node) => this.walkStatement(node),
  };

  constructor(
    private readonly context: ScriptContext,
    private readonly root: BashNode,
  ) {
    // A definition needs `()` or the `function` keyword; skip the tree search when neither is there.
    this.functionNames = /\(\s*\)|\bfunction\b/.test(root.text)
      ? new Set(
          root
            .descendantsOfType("function_definition")
            .map((node) => node?.childForFieldName("name")?.text ?? ""),
        )
      : new Set();
  }

  run(): CommandPart[] {
    if (this.root.hasError) {
      this.addPart(this.root, [], {
        classification: "unparseable",
        reason: "has a syntax error, so what it runs cannot be known",
      });
    }
    this.walkStatement(this.root);
    if (this.parts.length === 0) {
      this.addPart(this.root, [], { classification: "unparseable", reason: "contains no command" });
    }
    return this.parts;
  }

  private addPart(node: BashNode, words: readonly ShellWord[], verdict: Verdict): void {
    const via =
      this.context.via === undefined ? "" : ` (in the command string run by \`${this.context.via}\`)`;
    this.parts.push({
      command: node.text.trim(),
      words: words.map((word) => word.value),
      classification: verdict.classification,
      reason: `${verdict.reason}${via}`,
    });
  }

  private walkNamedChildren(node: BashNode): void {
    for (const child of node.namedChildren) {
      if (child !== null) {
        this.walkStatement(child);
      }
    }
  }

  private walkStatement(node: BashNode): void {
    if (node.isError || node.isMissing) {
      this.addPart(node, [], { classification: "unparseable", reason: "could not be parsed as shell" });
      return;
    }
    if (CONTAINER_TYPES.has(node.type)) {
      this.walkNamedChildren(node);
      return;
    }
    switch (node.type) {
      case "comment":
        return;
      case "pipeline":
        this.walkNamedChildren(node);
        this.checkDownloadIntoShell(node);
        return;
      case "compound_statement":
        if (node.child(0)?.type === "((") {
          this.addPart(node, [], {
            classification: "unparseable",
            reason: "is an arithmetic command, which can assign variables and evaluate code in their values",
          });
          return;
        }
        this.walkNamedChildren(node);
        return;
      case "redirected_statement":
        this.judgeRedirectedStatement(node);
        return;
      case "file_redirect":
      case "heredoc_redirect":
      case "herestring_redirect":
        // A redirection on its own, as in `$(< file)`: it only opens its target.
        this.addPart(
          node,
          [],
          findWorstVerdict(judgeRedirect(node, this.callbacks)) ?? {
            classification: "safe",
            reason: "only opens a file for reading",
          },
        );
        return;
      case "command":
        this.judgeCommand(node, [], node);
        return;
      case "for_statement":
      case "case_statement":
      case "case_item":
        this.judgeLoopOrCase(node);
        return;
      case "function_definition":
        this.judgeFunctionDefinition(node);
        return;
      case "test_command":
        this.judgeTest(node);
        return;
      case "declaration_command":
      case "unset_command":
        this.judgeDeclaration(node);
        return;
      case "variable_assignment":
      case "variable_assignments":
        this.judgeStandaloneAssignments(node);
        return;
      default:
        this.addPart(node, [], {
          classification: "unparseable",
          reason: `uses ${node.type.replaceAll("_", " ")}, a construct the policy does not judge`,
        });
    }
  }

  private judgeRedirectedStatement(node: BashNode): void {
    const body = node.childForFieldName("body");
    const redirects = node.namedChildren.filter(
      (child): child is BashNode => child !== null && child !== body && child.id !== body?.id,
    );
    if (body?.type === "command") {
      this.judgeCommand(body, redirects, node);
      return;
    }
    if (body !== null) {
      this.walkStatement(body);
    }
    for (const redirect of redirects) {
      if (!REDIRECT_TYPES.has(redirect.type)) {
        this.walkStatement(redirect);
        continue;
      }
      const worst = findWorstVerdict(judgeRedirect(redirect, this.callbacks));
      if (worst !== undefined) {
        this.addPart(node, [], worst);
      }
    }
  }

  private judgeCommand(node: BashNode, extraRedirects: readonly BashNode[], textNode: BashNode): void {
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
      assignmentNames.push(assignment.childForFieldName("name")?.text ?? "");
      problems.push(...this.scanChildren(assignment));
    }
    for (const redirect of [...reading.redirects, ...extraRedirects]) {
      if (REDIRECT_TYPES.has(redirect.type)) {
        problems.push(...judgeRedirect(redirect, this.callbacks));
      } else {
        problems.push({
          classification: "unparseable",
          reason: `has \`${redirect.text}\`, which the parser could not read`,
        });
      }
    }
    const wordNodes = reading.name === undefined ? reading.args : [reading.name, ...reading.args];
    const words: ShellWord[] = [];
    for (const wordNode of wordNodes) {
      problems.push(...scanWord(wordNode, this.callbacks.onSubstitution));
      const evaluated = evaluateWord(wordNode);
      if (evaluated.success) {
        words.push(evaluated.value);
      } else {
        problems.push({ classification: "unparseable", reason: evaluated.error });
      }
    }
    const allWordsRead = words.length === wordNodes.length;
    let ownVerdict: Verdict | undefined;
    let nested: readonly CommandPart[] = [];
    if (reading.name === undefined) {
      ownVerdict = judgeAssignmentNames(assignmentNames);
    } else if (allWordsRead) {
      const judgement = judgeWords(
        words,
        {
          allowPrefixes: this.context.allowPrefixes,
          functionNames: this.functionNames,
          judgeScript: (script, via, names) =>
            judgeScript(script, {
              ...this.context,
              depth: this.context.depth + 1,
              via,
              inheritedAssignments: names,
            }),
        },
        {
          assignmentNames: [...this.context.inheritedAssignments, ...assignmentNames],
          appendsArguments: false,
        },
      );
      ownVerdict = judgement.verdict;
      nested = judgement.nested;
      problems.push(...describeDownloadedScript(node, words));
    }
    const verdict = findWorstVerdict([ownVerdict, ...problems]);
    if (verdict !== undefined) {
      this.addPart(textNode, words, verdict);
    } else if (nested.length === 0) {
      this.addPart(textNode, words, { classification: "safe", reason: "runs an empty command string" });
    }
    this.parts.push(...nested);
  }

  private judgeLoopOrCase(node: BashNode): void {
    const problems: Verdict[] = [];
    node.children.forEach((child, index) => {
      if (child === null || !child.isNamed) {
        return;
      }
      const field = node.fieldNameForChild(index);
      if (field === "value" || field === "variable") {
        problems.push(...scanWord(child, this.callbacks.onSubstitution));
      } else {
        this.walkStatement(child);
      }
    });
    const worst = findWorstVerdict(problems);
    if (worst !== undefined) {
      this.addPart(node, [], worst);
    }
  }

  private judgeFunctionDefinition(node: BashNode): void {
    this.addPart(node, [], judgeFunctionDefinition(node));
    const body = node.childForFieldName("body");
    if (body !== null) {
      this.walkStatement(body);
    }
  }

  private judgeTest(node: BashNode): void {
    this.addPart(
      node,
      [],
      judgeTestCommand(node, (child) => this.scanChildren(child)),
    );
  }

  private judgeDeclaration(node: BashNode): void {
    this.addPart(
      node,
      [],
      judgeDeclarationCommand(node, (child) => this.scanChildren(child)),
    );
  }

  private judgeStandaloneAssignments(node: BashNode): void {
    this.addPart(
      node,
      [],
      judgeAssignmentStatement(node, (child) => this.scanChildren(child)),
    );
  }

  private checkDownloadIntoShell(pipeline: BashNode): void {
    const verdict = describeDownloadIntoShell(pipeline);
    if (verdict !== undefined) {
      this.addPart(pipeline, [], verdict);
    }
  }

  private scanChildren(node: BashNode): Verdict[] {
    return node.namedChildren.flatMap((child) =>
      child === null ? [] : scanWord(child, this.callbacks.onSubstitution),
    );
  }
}
