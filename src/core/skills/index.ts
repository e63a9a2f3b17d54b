/** The public face of this part of the core: what the doors may import. */
export { readInstructionsFromGitRef } from "./read-instructions-from-git-ref.js";
