import { findWorstVerdict, type CommandPart, type Verdict } from "./command-classification.js";
import { checkSyntaxSubset } from "./check-syntax-subset.js";
import type { CommandLocation } from "./command-location.js";
import { judgeRedirect, REDIRECT_TYPES, type RedirectCallbacks } from "./judge-redirect.js";
import { DIRECTORY_WORD, judgeWords } from "./judge-words.js";
import type { BashNode, BashParser } from "./load-bash-parser.js";
import {
  describeDownloadedScript,
  describeDownloadIntoShell,
  describeShellReadingInput,
} from "./detect-downloaded-code.js";
import { judgeFunctionDefinition } from "./judge-function-definition.js";
import { judgeDoubleBracket } from "./judge-test-command.js";
import {
  judgeAssignmentNames,
  judgeAssignmentStatement,
  judgeDeclarationCommand,
  judgeUnsetCommand,
} from "./judge-variable-statements.js";
import { readBracketTest } from "./read-bracket-test.js";
import { readCommandNode } from "./read-command-node.js";
import { judgeSubscript, scanWord } from "./scan-word.js";
import { evaluateWord, type ShellWord } from "./shell-word.js";
import type { ShellDialect } from "./unwrap-shell.js";

export interface ScriptContext {
  readonly parser: BashParser;
  readonly allowPrefixes: readonly (readonly string[])[];
  /** How many command strings (`bash -c`, `eval`) deep this script is. */
  readonly depth: number;
  /** Variables set for the whole script by whoever runs it (`PATH=x bash -c '...'`). */
  readonly inheritedAssignments: readonly string[];
  /** The wrapper that runs this script, named in reasons. */
  readonly via?: string;
  readonly dialect: ShellDialect;
  /** The workspace and the folder the script starts in. */
  readonly location: CommandLocation;
}

const MAX_SCRIPT_DEPTH = 6;

/** Statement nodes whose named children are statements to walk, in order. */
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
  "compound_statement",
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
  return context.parser.parse(script, (root) => new ScriptWalker(context, root, script).run());
}

/**
 * Walks the statements of one script. Which node types may appear at all, and how their text
 * must look, is checked first (`check-syntax-subset.ts`); the walker gives each approved type
 * its meaning and refuses any other by name.
 */
class ScriptWalker {
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
        this.addPart(
          node,
          [],
          judgeDeclarationCommand(node, (child) => this.scanChildren(child)),
        );
        return;
      case "unset_command":
        this.addPart(node, [], judgeUnsetCommand(node));
        return;
      case "variable_assignment":
      case "variable_assignments":
        this.addPart(
          node,
          [],
          judgeAssignmentStatement(node, (child) => this.scanChildren(child)),
        );
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
      problems.push(...this.scanChildren(assignment));
    }
    const redirects = [...reading.redirects, ...extraRedirects];
    problems.push(...this.judgeNamedDescriptors(reading.args, redirects));
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
    // Redirections are opened before the command runs, in the folder it starts in.
    for (const redirect of redirects) {
      if (REDIRECT_TYPES.has(redirect.type)) {
        problems.push(...judgeRedirect(redirect, this.callbacks));
      } else {
        problems.push({
          classification: "unparseable",
          reason: `has \`${redirect.text}\`, which the parser could not read`,
        });
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
          scriptChangesDirectory: this.changesDirectory,
          judgeScript: (nestedScript) =>
            judgeScript(nestedScript.script, {
              ...this.context,
              depth: this.context.depth + 1,
              via: nestedScript.via,
              inheritedAssignments: nestedScript.assignmentNames,
              dialect: nestedScript.dialect,
              location: nestedScript.location,
            }),
        },
        {
          assignmentNames: [...this.context.inheritedAssignments, ...assignmentNames],
          appendsArguments: false,
          location: this.location,
        },
      );
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

  /** `{fd}>file` opens a descriptor whose number bash stores in a variable; the parser reads `{fd}` as a word. */
  private judgeNamedDescriptors(args: readonly BashNode[], redirects: readonly BashNode[]): Verdict[] {
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

  private judgeLoopOrCase(node: BashNode): void {
    const problems: Verdict[] = [];
    if (node.type === "for_statement" && DIRECTORY_WORD.test(node.text)) {
      // A later round runs after the `cd` of an earlier one.
      this.forgetDirectory("the folder changes inside a loop");
    }
    node.children.forEach((child, index) => {
      if (!child.isNamed) {
        return;
      }
      const field = node.fieldNameForChild(index);
      if (field === "variable") {
        // The loop assigns its variable.
        const verdict = judgeAssignmentNames([child.text]);
        if (verdict.classification !== "safe") {
          problems.push(verdict);
        }
      } else if (field === "value") {
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
    if (node.children[0]?.type === "[[") {
      this.addPart(
        node,
        [],
        judgeDoubleBracket(node, (child) => this.scanChildren(child)),
      );
      return;
    }
    const read = readBracketTest(this.context.parser, node.text);
    if (read === undefined) {
      this.addPart(node, [], {
        classification: "unparseable",
        reason: "is a `[` test the policy cannot read as words",
      });
      return;
    }
    const problems: Verdict[] = this.scanChildren(node);
    const words: ShellWord[] = [];
    for (const evaluated of read) {
      if (evaluated.success) {
        words.push(evaluated.value);
      } else {
        problems.push({ classification: "unparseable", reason: evaluated.error });
      }
    }
    const judgement = judgeWords(
      words,
      {
        allowPrefixes: [],
        functionNames: this.functionNames,
        judgeScript: () => [],
        scriptChangesDirectory: false,
      },
      { assignmentNames: [], appendsArguments: false, location: this.location },
    );
    this.addPart(
      node,
      words,
      findWorstVerdict([judgement.verdict, ...problems]) ?? {
        classification: "safe",
        reason: "only tests a condition",
      },
    );
  }

  private checkPipeline(pipeline: BashNode): void {
    const verdict = describeDownloadIntoShell(pipeline);
    if (verdict !== undefined) {
      this.addPart(pipeline, [], verdict);
    }
  }

  private scanChildren(node: BashNode): Verdict[] {
    return node.namedChildren.flatMap((child) => scanWord(child, this.callbacks.onSubstitution));
  }
}
