/**
 * The environment of a stdio server: PATH, HOME and what the operator configured, never the
 * host's tokens and keys. (The SDK also passes LOGNAME, SHELL, TERM and USER, which hold no secrets.)
 */
export function mcpChildEnvironment(
  configured: Readonly<Record<string, string>>,
  hostEnv: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const base: Record<string, string> = {};
  for (const key of ["PATH", "HOME"] as const) {
    const value = hostEnv[key];
    if (value !== undefined) base[key] = value;
  }
  return { ...base, ...configured };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
