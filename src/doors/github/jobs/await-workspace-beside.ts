import type { JobWorkspace } from "./prepare-job-workspace.js";

/**
 * Waits for a checkout and a read of GitHub started beside it (neither needs the other). Both
 * settle before this returns or throws, so a failed read never leaves a checkout behind (a
 * ready workspace is removed) and a failed checkout is the error reported: it is the one that
 * says what happened to the work.
 */
export async function awaitWorkspaceBeside<T>(
  workspace: Promise<JobWorkspace>,
  beside: Promise<T>,
): Promise<readonly [JobWorkspace, T]> {
  const [checkout, read] = await Promise.allSettled([workspace, beside]);
  if (checkout.status === "rejected") throw checkout.reason;
  if (read.status === "rejected") {
    await checkout.value.cleanup();
    throw read.reason;
  }
  return [checkout.value, read.value];
}
