import type { HostRepository } from "./host-repository.js";

/** A checkout the harness works in: the repository, and what sandboxes over it show read-only. */
export interface WorkspaceRepository extends HostRepository {
  readonly workTree: string;
  /**
   * The git directory, the object stores it borrows and the work tree's `.git` entry: mounted
   * read-only in every sandbox over the work tree, so in-sandbox git can read them and nothing
   * can write them.
   */
  readonly sandboxReadOnlyPaths: readonly string[];
}
