/**
 * Where the bash parser's two WebAssembly files are read from: `tree-sitter.wasm` (the parser
 * runtime) and `tree-sitter-bash.wasm` (the grammar). Normally both are found through
 * node_modules; a bundled door (the Action's single `dist/action.js`) has no node_modules and
 * ships the files beside itself, so it names that folder here once, before any command is judged.
 *
 * A setter rather than an environment variable: the location is decided by the code that ships
 * the files, and nothing in a run's environment should be able to point the policy at another
 * grammar.
 */
let grammarDirectory: string | undefined;

/** Names the folder holding `tree-sitter.wasm` and `tree-sitter-bash.wasm`. */
export function setBashGrammarDirectory(directory: string): void {
  grammarDirectory = directory;
}

/** The folder set by `setBashGrammarDirectory`, or undefined to resolve through node_modules. */
export function getBashGrammarDirectory(): string | undefined {
  return grammarDirectory;
}
