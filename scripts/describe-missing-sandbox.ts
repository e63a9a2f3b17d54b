import type { SandboxDetection } from "../src/core/sandbox/index.js";

/**
 * What the demo says before it starts when bubblewrap cannot sandbox a command here, or null when
 * it can. Without it every shell call of the demo would be refused, and the run would show nothing
 * of what the harness does.
 */
export function describeMissingSandbox(detection: SandboxDetection): string | null {
  if (detection.available) return null;
  return [
    `The demo needs the bubblewrap sandbox for its shell commands, and it is not usable here: ${detection.problem ?? "unknown problem"}`,
    "Install it and run the demo again:",
    "  sudo apt-get install -y bubblewrap      (Debian, Ubuntu; Fedora: sudo dnf install bubblewrap)",
    `Fix: ${detection.fix ?? "install bubblewrap"}`,
    "To run the demo's commands without isolation instead: AGENTFORGE_SANDBOX=none npm run demo",
  ].join("\n");
}
