export type BwrapChildPidResult = { success: true; value: number } | { success: false; error: string };

/**
 * Reads the host pid of the sandbox's first process from what bwrap writes to `--info-fd`
 * (a JSON object with `child-pid`, plus namespace ids in newer versions).
 */
export function parseBwrapChildPid(report: string): BwrapChildPidResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(report);
  } catch (error) {
    return {
      success: false,
      error: `bwrap's info is not JSON (${(error as Error).message}): ${report.slice(0, 200)}`,
    };
  }
  const pid =
    typeof parsed === "object" && parsed !== null
      ? (parsed as Record<string, unknown>)["child-pid"]
      : undefined;
  if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 1)
    return { success: false, error: `bwrap's info has no valid child-pid: ${report.slice(0, 200)}` };
  return { success: true, value: pid };
}
