/** `bwrap` is the default; `none` runs commands without isolation and must be chosen explicitly. */
export type SandboxMode = "bwrap" | "none";

export type SandboxModeResult = { success: true; value: SandboxMode } | { success: false; error: string };

/** Reads `AGENTFORGE_SANDBOX`. Anything but the two known words is an error, never a silent `none`. */
export function readSandboxMode(env: NodeJS.ProcessEnv = process.env): SandboxModeResult {
  const raw = env["AGENTFORGE_SANDBOX"]?.trim().toLowerCase();
  if (raw === undefined || raw === "" || raw === "bwrap") return { success: true, value: "bwrap" };
  if (raw === "none") return { success: true, value: "none" };
  return {
    success: false,
    error: `AGENTFORGE_SANDBOX must be "bwrap" or "none", got ${JSON.stringify(env["AGENTFORGE_SANDBOX"])}.`,
  };
}
