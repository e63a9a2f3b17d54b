import path from "node:path";

/**
 * True when `candidate` is `parent` itself or lies below it. Both must be absolute and normalised
 * (real paths where links matter: this compares names, it does not follow links). A name that
 * merely starts with two dots (`..cache`) is inside; only the `..` segment leaves.
 */
export function isPathInside(parent: string, candidate: string): boolean {
  const relative = path.relative(parent, candidate);
  return (
    relative === "" ||
    (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}
