import { lstat, readlink } from "node:fs/promises";
import path from "node:path";

export type ResolveRealPathResult =
  { readonly success: true; readonly value: string } | { readonly success: false; readonly error: string };

/** Symlink hops followed before giving up, as the kernel does (ELOOP at 40). */
const MAX_LINK_HOPS = 40;

/**
 * Where the kernel would land for `target`, one component at a time: a symlink is replaced by
 * its target before the next component (so `link/..` is the parent of the link's target, not
 * the directory holding the link), and a dangling symlink resolves to where a write through it
 * would create the file. Missing components are kept as written.
 */
export async function resolveRealPath(target: string, base: string): Promise<ResolveRealPathResult> {
  const hops = { count: 0 };
  // Joined by hand: path.resolve would fold `..` lexically, before symlinks are known.
  const raw = path.isAbsolute(target) ? target : `${base}${path.sep}${target}`;
  try {
    return { success: true, value: await resolveComponents(raw, hops) };
  } catch (error: unknown) {
    return {
      success: false,
      error: `cannot resolve \`${target}\`: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

async function resolveComponents(raw: string, hops: { count: number }): Promise<string> {
  let current = path.parse(path.resolve(raw)).root;
  for (const component of raw.split(path.sep)) {
    if (component === "" || component === ".") {
      continue;
    }
    if (component === "..") {
      current = path.dirname(current);
      continue;
    }
    const candidate = path.join(current, component);
    const stats = await lstat(candidate).catch((error: unknown) => {
      if (isMissing(error)) {
        return undefined;
      }
      throw error;
    });
    if (stats?.isSymbolicLink() === true) {
      hops.count += 1;
      if (hops.count > MAX_LINK_HOPS) {
        throw new Error("too many levels of symbolic links");
      }
      const linkTarget = await readlink(candidate);
      current = await resolveComponents(
        path.isAbsolute(linkTarget) ? linkTarget : `${current}${path.sep}${linkTarget}`,
        hops,
      );
    } else {
      current = candidate;
    }
  }
  return current;
}

/** Checked by shape: errors from Node's fs may come from another realm (test sandboxes), where `instanceof Error` fails. */
function isMissing(error: unknown): boolean {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  return code === "ENOENT" || code === "ENOTDIR";
}
