import { createRequire } from "node:module";
import path from "node:path";
import type { TreeCursor } from "web-tree-sitter";
import { getBashGrammarDirectory } from "./bash-grammar-location.js";
import { SyntaxNode } from "./syntax-node.js";

/** A ready bash parser. `parse` is synchronous once the grammar is loaded. */
export interface BashParser {
  /** Parses `source` and hands the root to `visit`; the tree's memory is freed afterwards. */
  parse<T>(source: string, visit: (root: BashNode) => T): T;
}

export type BashNode = SyntaxNode;

/** Deeper trees (thousands of nested substitutions) are cut off and marked as errors. */
const MAX_TREE_DEPTH = 400;

let loading: Promise<BashParser> | undefined;

/**
 * Loads the tree-sitter bash grammar once per process. The WebAssembly build is used rather
 * than the native addon so the same code runs in the CLI, the Action bundle and tests.
 */
export function loadBashParser(): Promise<BashParser> {
  loading ??= createBashParser().catch((error: unknown) => {
    // A failed load must not poison the cache: the next caller tries again.
    loading = undefined;
    throw new BashParserLoadError(error);
  });
  return loading;
}

async function createBashParser(): Promise<BashParser> {
  // Loaded with the grammar: the CLI imports the policy module for its constants, and a server
  // that never judges a command should not carry the parser.
  const { Language, Parser } = await import("web-tree-sitter");
  const bundledFolder = getBashGrammarDirectory();
  let grammarFolder: string;
  if (bundledFolder === undefined) {
    await Parser.init();
    const require = createRequire(import.meta.url);
    grammarFolder = path.dirname(require.resolve("tree-sitter-bash/package.json"));
  } else {
    await Parser.init({ locateFile: (file: string) => path.join(bundledFolder, file) });
    grammarFolder = bundledFolder;
  }
  const language = await Language.load(path.join(grammarFolder, "tree-sitter-bash.wasm"));
  const parser = new Parser();
  parser.setLanguage(language);
  return {
    parse<T>(source: string, visit: (root: BashNode) => T): T {
      const tree = parser.parse(source);
      if (tree === null) {
        throw new BashParserLoadError(new Error("the parser returned no tree"));
      }
      let root: SyntaxNode;
      const cursor = tree.walk();
      try {
        root = copyTree(cursor, source, { nextId: 0 }, 0);
      } finally {
        cursor.delete();
        tree.delete();
      }
      return visit(root);
    },
  };
}

/** Copies the tree under the cursor into plain nodes, in one pass. */
function copyTree(
  cursor: TreeCursor,
  source: string,
  counter: { nextId: number },
  depth: number,
): SyntaxNode {
  const node = new SyntaxNode(
    counter.nextId++,
    depth > MAX_TREE_DEPTH ? "ERROR" : cursor.nodeType,
    source.slice(cursor.startIndex, cursor.endIndex),
    cursor.nodeIsNamed,
    cursor.nodeIsMissing,
    cursor.startIndex,
    cursor.endIndex,
  );
  if (depth <= MAX_TREE_DEPTH && cursor.gotoFirstChild()) {
    do {
      const fieldName = cursor.currentFieldName;
      node.addChild(copyTree(cursor, source, counter, depth + 1), fieldName);
    } while (cursor.gotoNextSibling());
    cursor.gotoParent();
  }
  return node;
}

export class BashParserLoadError extends Error {
  readonly code = "BASH_PARSER_UNAVAILABLE";

  constructor(cause: unknown) {
    super("The bash grammar could not be loaded", { cause });
    this.name = "BashParserLoadError";
  }
}
