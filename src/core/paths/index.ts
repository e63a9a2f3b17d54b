/** Path predicates the security of several parts rests on: one definition, one argument order. */
export { isPathInside } from "./is-path-inside.js";
export { hasGitSegment, isGitName } from "./is-git-name.js";
