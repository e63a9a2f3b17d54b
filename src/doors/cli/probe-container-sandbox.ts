import { detectSandbox } from "../../core/sandbox/index.js";
import type { ContainerSandboxFacts } from "./advise-container-sandbox.js";
import { isInContainer, readContainerFacts, type ContainerFacts } from "./detect-container.js";

/**
 * The facts adviseContainerSandbox needs. The sandbox probe is the one doctor's sandbox check ran
 * (detectSandbox caches it), so this costs nothing more.
 */
export async function probeContainerSandbox(
  env: NodeJS.ProcessEnv,
  readContainer: () => ContainerFacts = readContainerFacts,
): Promise<ContainerSandboxFacts> {
  if (!isInContainer(readContainer())) return { isInContainer: false, isBubblewrapRefused: false };
  const detection = await detectSandbox({ env });
  return {
    isInContainer: true,
    isBubblewrapRefused: !detection.available && detection.bwrapPath !== undefined,
  };
}
