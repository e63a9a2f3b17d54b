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
      if (side === undefined || side === "/dev/null" || side === "") continue;
      paths.add(side);
      // The diff parser drops git's quotes but keeps its escapes: git writes the decoded name.
      if (side.includes("\\")) paths.add(unquoteGitPath(`"${side}"`));
    }
  }
  // git writes where `rename to` / `copy to` say, whatever the `diff --git` line shows: the
  // approval gate must see those names too.
  for (const match of patch.matchAll(/^(?:rename|copy) (?:from|to) (.+)$/gm)) {
    const named = match[1]?.replace(/\r$/, "");
    if (named) paths.add(unquoteGitPath(named));
  }
  return [...paths];
}

/** A path as git quotes it (`"dir/\\150idden.txt"`: C escapes, octal bytes of UTF-8), unquoted. */
export function unquoteGitPath(raw: string): string {
  if (!(raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"'))) return raw;
  const bytes: number[] = [];
  const body = raw.slice(1, -1);
  const escapes: Readonly<Record<string, number>> = {
    a: 7,
    b: 8,
    t: 9,
    n: 10,
    v: 11,
    f: 12,
    r: 13,
    '"': 34,
    "\\": 92,
  };
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index] ?? "";
    if (char !== "\\") {
      bytes.push(...Buffer.from(char, "utf8"));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(index + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      index += 3;
      continue;
    }
    const next = body[index + 1] ?? "";
    bytes.push(escapes[next] ?? next.charCodeAt(0));
    index += 1;
  }
  return Buffer.from(bytes).toString("utf8");
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

/** What a file mode's type bits make of a path that patches may not create or retarget. */
export type LinkKind = "symlink" | "submodule";

const TYPE_MASK = 0o170000;
const SYMLINK_TYPE = 0o120000;
const GITLINK_TYPE = 0o160000;

/**
 * Reads a mode the way git does (strtoul in base 8: leading blanks, an optional sign, octal
 * digits), so `0120000`, `120777` or `+120000` are the symlink they are to git.
 */
function linkKindOfMode(text: string): LinkKind | undefined {
  const match = /^\s*[+-]?([0-7]+)/.exec(text);
  if (!match?.[1]) return undefined;
  const type = Number.parseInt(match[1], 8) & TYPE_MASK;
  if (type === SYMLINK_TYPE) return "symlink";
  if (type === GITLINK_TYPE) return "submodule";
  return undefined;
}

/**
 * Whether a patch creates or retargets a symlink or a submodule: in a `new file mode` or
 * `new mode` line, or the mode of an `index` line (a change to an existing link's target).
 */
export function findLinkOrSubmoduleMode(patch: string): LinkKind | undefined {
  for (const line of patch.split(/\r?\n/)) {
    const header = /^(?:new file mode |new mode )(.*)$/.exec(line) ?? /^index [^ ]+ (.*)$/.exec(line);
    const kind = header?.[1] === undefined ? undefined : linkKindOfMode(header[1]);
    if (kind !== undefined) return kind;
  }
  return undefined;
}

/**
 * The same question asked of git's own reading (`git apply --summary`): ` create mode <mode>`
 * and ` mode change <old> => <new>` lines.
 */
export function findLinkModeInSummary(summary: string): LinkKind | undefined {
  for (const line of summary.split("\n")) {
    const created = /^\s*create mode (\S+)/.exec(line);
    const changed = /^\s*mode change \S+ => (\S+)/.exec(line);
    const mode = created?.[1] ?? changed?.[1];
    const kind = mode === undefined ? undefined : linkKindOfMode(mode);
    if (kind !== undefined) return kind;
  }
  return undefined;
}

function toCount(value: string): number | undefined {
  return value === "-" ? undefined : Number.parseInt(value, 10);
}
