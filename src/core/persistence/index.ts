/** The public face of this part of the core: what the doors may import. */
export { ensurePrivateDir, resolveDataDir } from "./resolve-data-dir.js";
export { createRunId } from "./validate-id.js";
export { writeFileAtomic } from "./write-file-atomic.js";
