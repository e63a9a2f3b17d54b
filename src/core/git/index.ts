/** The public face of this part of the core: what the doors may import. */
export { discoverWorkspaceRepository } from "./discover-workspace-repository.js";
export { findNestedRepositories } from "./find-nested-repositories.js";
export { isHostGitError } from "./host-git-error.js";
export { type HostRepository } from "./host-repository.js";
export { runHostGit, runHostGitForExit, type HostGitOptions } from "./run-host-git.js";
export { settleWorkspaceIndex } from "./settle-workspace-index.js";
export { type WorkspaceRepository } from "./workspace-repository.js";
