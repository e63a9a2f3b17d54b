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

/**
 * How the setup phase (`npm ci`...) reaches the network: "isolated" (default) gives its sandbox a
 * user-mode network of its own that cannot reach the host's loopback, the host's addresses or
 * link-local metadata; "host" shares the host's network namespace and must be chosen explicitly.
 */
export type SetupNetworkMode = "isolated" | "host";

/** Reads `AGENTFORGE_SETUP_NETWORK`; anything but the two known words is an error. */
export function readSetupNetworkMode(
  env: NodeJS.ProcessEnv = process.env,
): { success: true; value: SetupNetworkMode } | { success: false; error: string } {
  const raw = env["AGENTFORGE_SETUP_NETWORK"]?.trim().toLowerCase();
  if (raw === undefined || raw === "" || raw === "isolated") return { success: true, value: "isolated" };
  if (raw === "host") return { success: true, value: "host" };
  return {
    success: false,
    error: `AGENTFORGE_SETUP_NETWORK must be "isolated" or "host", got ${JSON.stringify(env["AGENTFORGE_SETUP_NETWORK"])}.`,
  };
}
