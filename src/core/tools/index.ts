/** The public face of this part of the core: what the doors may import. */
export { scopeCommandRunner } from "./scope-command-runner.js";
export { type CommandRunner } from "./tool.js";
