import { findWorstVerdict, type CommandPart, type Verdict } from "./command-classification.js";
import { checkSyntaxSubset } from "./check-syntax-subset.js";
import type { CommandLocation } from "./command-location.js";
import { judgeRedirect, REDIRECT_TYPES, type RedirectCallbacks } from "./judge-redirect.js";
import { DIRECTORY_WORD } from "./judge-words.js";
import type { BashNode } from "./load-bash-parser.js";
import {
  describeDownloadedScript,
  describeDownloadIntoShell,
  describeShellReadingInput,
} from "./detect-downloaded-code.js";
import { judgeFunctionDefinition } from "./judge-function-definition.js";
import type { ScriptContext } from "./judge-script.js";
import { judgeCommandWords } from "./judge-command-words.js";
import { judgeTestStatement } from "./judge-test-statement.js";
import {
  judgeAssignmentNames,
  judgeAssignmentStatement,
  judgeDeclarationCommand,
  judgeUnsetCommand,
} from "./judge-variable-statements.js";
import { CONTAINER_TYPES } from "./statement-containers.js";
import { readLoopOrCaseHeader } from "./read-loop-or-case-header.js";
import { readSimpleCommand } from "./read-simple-command.js";
import { scanWord } from "./scan-word.js";
import type { ShellWord } from "./shell-word.js";

/**
 * Walks the statements of one script. Which node types may appear at all, and how their text
 * must look, is checked first (`check-syntax-subset.ts`); the walker gives each approved type
 * its meaning and refuses any other by name.
 */
export class ScriptWalker {
  private readonly parts: CommandPart[] = [];
  private readonly functionNames: Set<string>;
  /** Somewhere in the line the folder may change (`cd`, `pushd`, `popd`, also as plain text). */
  private readonly changesDirectory: boolean;
  private location: CommandLocation;
  private readonly callbacks: RedirectCallbacks = {
    onSubstitution: (node) => this.walkNamedChildren(node),
    onStatement: (node) => this.walkStatement(node),
    location: () => this.location,
  };

  constructor(
    private readonly context: ScriptContext,
    private readonly root: BashNode,
    private readonly source: string,
  ) {
    this.location = context.location;
    this.changesDirectory = DIRECTORY_WORD.test(source);
    // A definition needs `()` or the `function` keyword; skip the tree search when neither is there.
    this.functionNames = /\(\s*\)|\bfunction\b/.test(root.text)
      ? new Set(
          root
            .descendantsOfType("function_definition")
            .map((node) => node.childForFieldName("name")?.text ?? ""),
        )
      : new Set();
  }

  run(): CommandPart[] {
    for (const problem of checkSyntaxSubset(this.root, this.source, this.context.dialect)) {
      this.addPart(this.root, [], problem);
    }
    if (this.root.hasError && this.parts.length === 0) {
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
      this.walkStatement(child);
    }
  }

  private walkStatement(node: BashNode): void {
    if (node.isError || node.isMissing) {
      this.addPart(node, [], { classification: "unparseable", reason: "could not be parsed as shell" });
      return;
    }
    if (node.type === "while_statement" && DIRECTORY_WORD.test(node.text)) {
      // A later round runs after the `cd` of an earlier one.
      this.forgetDirectory("the folder changes inside a loop");
    }
    if (CONTAINER_TYPES.has(node.type)) {
      if (node.type === "compound_statement" && node.children[0]?.type === "((") {
        this.addPart(node, [], {
          classification: "unparseable",
          reason:
            "is an arithmetic command `(( … ))`, which evaluates array subscripts and variable values as code",
        });
        return;
      }
      this.walkNamedChildren(node);
      return;
    }
    switch (node.type) {
      case "comment":
        return;
      case "pipeline":
        this.walkNamedChildren(node);
        this.checkPipeline(node);
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
        this.addPart(node, [], judgeDeclarationCommand(node, this.scan));
        return;
      case "unset_command":
        this.addPart(node, [], judgeUnsetCommand(node));
        return;
      case "variable_assignment":
      case "variable_assignments":
        this.addPart(node, [], judgeAssignmentStatement(node, this.scan));
        return;
      default:
        this.addPart(node, [], {
          classification: "unparseable",
          reason: `uses ${node.type.replaceAll("_", " ")}, a construct the policy does not model`,
        });
    }
  }

  private judgeRedirectedStatement(node: BashNode): void {
    const body = node.childForFieldName("body");
    const redirects = node.namedChildren.filter((child) => child.id !== body?.id);
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
    const { reading, words, wordNodes, assignmentNames, redirects, problems } = readSimpleCommand(
      node,
      extraRedirects,
      this.callbacks,
      this.scan,
    );
    const allWordsRead = words.length === wordNodes.length;
    let ownVerdict: Verdict | undefined;
    let nested: readonly CommandPart[] = [];
    if (reading.name === undefined) {
      ownVerdict = judgeAssignmentNames(assignmentNames);
    } else if (allWordsRead) {
      const judgement = judgeCommandWords(words, {
        context: this.context,
        functionNames: this.functionNames,
        changesDirectory: this.changesDirectory,
        assignmentNames,
        location: this.location,
      });
      ownVerdict = judgement.verdict;
      nested = judgement.nested;
      if (judgement.directoryChange !== undefined) {
        this.location = { ...this.location, cwd: judgement.directoryChange };
      }
      problems.push(...describeDownloadedScript(node, words));
      problems.push(...describeShellReadingInput(words, redirects));
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
    if (node.type === "for_statement" && DIRECTORY_WORD.test(node.text)) {
      // A later round runs after the `cd` of an earlier one.
      this.forgetDirectory("the folder changes inside a loop");
    }
    const header = readLoopOrCaseHeader(node, this.callbacks.onSubstitution);
    problems.push(...header.problems);
    for (const statement of header.statements) this.walkStatement(statement);
    const worst = findWorstVerdict(problems);
    if (worst !== undefined) {
      this.addPart(node, [], worst);
    }
  }

  /** The body is judged where it may be called: after any `cd` of the command line. */
  private judgeFunctionDefinition(node: BashNode): void {
    this.addPart(node, [], judgeFunctionDefinition(node));
    const body = node.childForFieldName("body");
    if (body !== null) {
      const location = this.location;
      if (this.changesDirectory) {
        this.forgetDirectory("a function may be called after a `cd`");
      }
      this.walkStatement(body);
      this.location = location;
    }
  }

  private forgetDirectory(reason: string): void {
    if (this.location.cwd.kind === "known") {
      this.location = { ...this.location, cwd: { kind: "unknown", reason } };
    }
  }

  private judgeTest(node: BashNode): void {
    const judged = judgeTestStatement(node, {
      parser: this.context.parser,
      functionNames: this.functionNames,
      location: this.location,
      scanChildren: this.scan,
    });
    this.addPart(node, judged.words, judged.verdict);
  }

  private checkPipeline(pipeline: BashNode): void {
    const verdict = describeDownloadIntoShell(pipeline);
    if (verdict !== undefined) {
      this.addPart(pipeline, [], verdict);
    }
  }

  private readonly scan = (node: BashNode): Verdict[] => this.scanChildren(node);

  private scanChildren(node: BashNode): Verdict[] {
    return node.namedChildren.flatMap((child) => scanWord(child, this.callbacks.onSubstitution));
  }
}
