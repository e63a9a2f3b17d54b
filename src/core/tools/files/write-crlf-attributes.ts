import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { collectRenames } from "./collect-patch-paths.js";
import { patternLeavesSearch } from "./file-errors.js";
import { detectLineEnding } from "./line-endings.js";
import { loadTextFile } from "./load-text-file.js";
import { resolveWorkspacePath } from "./resolve-workspace-path.js";

/**
 * A gitattributes file of the harness's own that names the patch's CRLF files (and where a rename
 * or copy puts them) `eol=crlf`: git then reads them as LF, applies an LF patch, and writes every
 * line back with CRLF. Returns its path in `scratchDir`, or undefined when the patch touches no
 * CRLF file or already carries CRLF lines. The caller removes it.
 */
export async function writeCrlfAttributes(
  root: string,
  scratchDir: string,
  patch: string,
  paths: readonly string[],
): Promise<string | undefined> {
  if (/\r\n/.test(patch)) return undefined;
  const files = withRenamedTargets(await crlfTargets(root, paths), collectRenames(patch));
  if (files.length === 0) return undefined;
  const attributes = path.join(scratchDir, `crlf-${randomBytes(6).toString("hex")}.gitattributes`);
  await mkdir(scratchDir, { recursive: true, mode: 0o700 });
  await writeFile(attributes, files.map((file) => `"/${file}" eol=crlf\n`).join(""), { mode: 0o600 });
  return attributes;
}

/** Names safe to write in a gitattributes line unescaped: no glob characters, quotes or controls. */
const PLAIN_PATH = /^[\w./ @+,=-]+$/;

/** The patch's existing targets whose lines all end in CRLF. */
async function crlfTargets(root: string, paths: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const item of paths) {
    const resolved = resolveWorkspacePath(root, item, { forWrite: true });
    if (!resolved.success || !PLAIN_PATH.test(resolved.value.relative)) continue;
    const loaded = await loadTextFile(root, resolved.value);
    if (loaded.success && detectLineEnding(loaded.value.text) === "crlf") found.push(resolved.value.relative);
  }
  return found;
}

/** A rename or copy of a CRLF file writes a new path: it keeps CRLF too. */
function withRenamedTargets(crlfFiles: readonly string[], renames: ReadonlyMap<string, string>): string[] {
  const all = new Set(crlfFiles);
  for (const [to, from] of renames) {
    if (all.has(from) && PLAIN_PATH.test(to) && !patternLeavesSearch(to)) all.add(to);
  }
  return [...all];
}
