import { isAbsolute, relative } from "node:path";

/** True when `child` is `parent` or below it. Both must already be real (symlink-free) paths. */
export function isPathInside(child: string, parent: string): boolean {
  const fromParent = relative(parent, child);
  return fromParent === "" || (!fromParent.startsWith("..") && !isAbsolute(fromParent));
}
