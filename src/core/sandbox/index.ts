/** The public face of this part of the core: what the doors may import. */
export { runSetupCommands } from "./run-setup-commands.js";
export { detectSandbox, type SandboxDetection } from "./detect-sandbox.js";
