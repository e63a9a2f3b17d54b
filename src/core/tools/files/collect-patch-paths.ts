import parseDiff from "parse-diff";

export interface PatchFileStat {
  readonly path: string;
  /** The old name of a renamed file. */
  readonly previousPath?: string;
  /** Undefined for binary files. */
  readonly added: number | undefined;
  readonly deleted: number | undefined;
}

/** Every path a patch names, old and new sides (renames, deletions, creations), without /dev/null. */
export function collectPatchPaths(patch: string): string[] {
  const paths = new Set<string>();
  for (const file of parseDiff(patch)) {
    for (const side of [file.from, file.to]) {
      if (side !== undefined && side !== "/dev/null" && side !== "") paths.add(side);
    }
  }
  return [...paths];
}

/** New path → old path for every rename or copy in the patch. */
export function collectRenames(patch: string): Map<string, string> {
  const renames = new Map<string, string>();
  for (const file of parseDiff(patch)) {
    if (
      file.from &&
      file.to &&
      file.from !== file.to &&
      file.from !== "/dev/null" &&
      file.to !== "/dev/null"
    ) {
      renames.set(file.to, file.from);
    }
  }
  return renames;
}

/**
 * `-p1` for git-style patches (`a/` and `b/` prefixes), `-p0` for plain ones (`--- src/x.ts`),
 * which models often write; with `-p1` git would strip `src/` from them.
 */
export function detectStripLevel(patch: string): 0 | 1 {
  if (/^diff --git /m.test(patch)) return 1;
  const headers = [...patch.matchAll(/^(?:---|\+\+\+) ([^\t\n]+)/gm)]
    .map((match) => (match[1] ?? "").trim())
    .filter((header) => header !== "/dev/null");
  return headers.length > 0 && headers.every((header) => header.startsWith("a/") || header.startsWith("b/"))
    ? 1
    : 0;
}

/** Parses `git apply --numstat -z`: `added\tdeleted\tpath\0`, or for renames `added\tdeleted\t\0old\0new\0`. */
export function parseNumstat(output: string): PatchFileStat[] {
  const records = output.split("\0");
  const stats: PatchFileStat[] = [];
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index] ?? "";
    if (record === "") continue;
    const [added = "-", deleted = "-", ...rest] = record.split("\t");
    const filePath = rest.join("\t");
    if (filePath === "") {
      const previousPath = records[index + 1] ?? "";
      const newPath = records[index + 2] ?? "";
      index += 2;
      stats.push({ path: newPath, previousPath, added: toCount(added), deleted: toCount(deleted) });
    } else {
      stats.push({ path: filePath, added: toCount(added), deleted: toCount(deleted) });
    }
  }
  return stats;
}

/** Modes git uses for symlinks and submodules; a patch may not create or retarget them. */
export function findLinkOrSubmoduleMode(patch: string): string | undefined {
  const match =
    /^(?:new file mode|new mode) (120000|160000)\s*$|^index [0-9a-f]+\.\.[0-9a-f]+ (120000|160000)\s*$/m.exec(
      patch,
    );
  return match ? (match[1] ?? match[2]) : undefined;
}

function toCount(value: string): number | undefined {
  return value === "-" ? undefined : Number.parseInt(value, 10);
}
