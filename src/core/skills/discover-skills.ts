import type { Dirent } from "node:fs";
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { isPathInside } from "../paths/index.js";
import { parseSkillFile } from "./parse-skill-file.js";

/**
 * Skills are `<root>/<skill-name>/SKILL.md` files. Only their name and one-line description go
 * into the system prompt; the body reaches the context when the model calls `load_skill`.
 *
 * Operator roots are trusted locations. A repository root (`.agentforge/skills/`) is content of
 * the repository under change: every path in it is resolved and must stay inside the repository,
 * so a symlink cannot make the harness read `~/.ssh` or another checkout into the context.
 * Bodies are read here, once, so what `load_skill` returns is what was checked.
 */
export type SkillOrigin = "operator" | "repository";

export interface SkillRoot {
  readonly dir: string;
  readonly origin: SkillOrigin;
  /** When set, the real path of the root and of every SKILL.md must be inside this directory. */
  readonly confineTo?: string;
}

export interface SkillSummary {
  readonly name: string;
  readonly description: string;
  readonly origin: SkillOrigin;
  /** Real path of the SKILL.md file. */
  readonly path: string;
  /** The markdown after the front matter; shown only through load_skill. */
  readonly body: string;
}

export interface DiscoverSkillsOptions {
  /** SKILL.md files larger than this are skipped and reported. */
  readonly maxFileBytes?: number;
  readonly maxSkills?: number;
}

export interface SkillDiscovery {
  readonly skills: readonly SkillSummary[];
  readonly problems: readonly string[];
}

/** The repository's own skill root, confined to the repository. */
export function repositorySkillRoot(workspaceRoot: string): SkillRoot {
  return {
    dir: join(workspaceRoot, ".agentforge", "skills"),
    origin: "repository",
    confineTo: workspaceRoot,
  };
}

/**
 * Roots are searched in order and the first skill of a name wins; a later one with the same name
 * is skipped and reported. Pass operator roots before the repository's, so a repository cannot
 * shadow an operator skill. A plain string is an operator root.
 */
export async function discoverSkills(
  roots: readonly (string | SkillRoot)[],
  options: DiscoverSkillsOptions = {},
): Promise<SkillDiscovery> {
  const maxFileBytes = options.maxFileBytes ?? 256 * 1024;
  const maxSkills = options.maxSkills ?? 200;
  const skills: SkillSummary[] = [];
  const problems: string[] = [];
  const byName = new Map<string, SkillSummary>();

  for (const rootOption of roots) {
    const root: SkillRoot =
      typeof rootOption === "string" ? { dir: rootOption, origin: "operator" } : rootOption;
    const located = await locateRoot(root, problems);
    if (!located) continue;
    for (const entry of located.entries) {
      if (entry.name.startsWith(".") || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
      const declaredPath = join(root.dir, entry.name, "SKILL.md");
      const skill = await readSkill(
        join(located.realRoot, entry.name, "SKILL.md"),
        declaredPath,
        root,
        located.realConfine,
        maxFileBytes,
        problems,
      );
      if (!skill) continue;
      const earlier = byName.get(skill.name);
      if (earlier) {
        problems.push(
          `${declaredPath}: skipped: a skill named "${skill.name}" was already found at ${earlier.path}`,
        );
        continue;
      }
      if (skills.length >= maxSkills) {
        problems.push(`${declaredPath}: skipped: more than ${maxSkills} skills`);
        continue;
      }
      byName.set(skill.name, skill);
      skills.push(skill);
    }
  }
  return { skills, problems };
}

interface LocatedRoot {
  readonly realRoot: string;
  readonly realConfine: string | undefined;
  readonly entries: readonly Dirent[];
}

async function locateRoot(root: SkillRoot, problems: string[]): Promise<LocatedRoot | undefined> {
  let realRoot: string;
  let realConfine: string | undefined;
  try {
    realConfine = root.confineTo === undefined ? undefined : await realpath(root.confineTo);
    realRoot = await realpath(root.dir);
  } catch (error) {
    // A repository without `.agentforge/skills` is the common case, not a problem.
    if (errnoCode(error) === "ENOENT" && root.origin === "repository") return undefined;
    problems.push(`skill root ${root.dir}: ${describe(error)}`);
    return undefined;
  }
  if (realConfine !== undefined && !isPathInside(realConfine, realRoot)) {
    problems.push(`skill root ${root.dir}: refused: it resolves to ${realRoot}, outside ${realConfine}`);
    return undefined;
  }
  try {
    const entries = await readdir(realRoot, { withFileTypes: true });
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    return { realRoot, realConfine, entries };
  } catch (error) {
    problems.push(`skill root ${root.dir}: ${describe(error)}`);
    return undefined;
  }
}

async function readSkill(
  candidate: string,
  declaredPath: string,
  root: SkillRoot,
  realConfine: string | undefined,
  maxFileBytes: number,
  problems: string[],
): Promise<SkillSummary | undefined> {
  let realFile: string;
  try {
    realFile = await realpath(candidate);
  } catch (error) {
    // A folder without SKILL.md is not a skill; anything else (a loop of links...) is reported.
    const code = errnoCode(error);
    if (code !== "ENOENT" && code !== "ENOTDIR") problems.push(`${declaredPath}: ${describe(error)}`);
    return undefined;
  }
  if (realConfine !== undefined && !isPathInside(realConfine, realFile)) {
    problems.push(`${declaredPath}: refused: it resolves to ${realFile}, outside ${realConfine}`);
    return undefined;
  }
  try {
    const info = await stat(realFile);
    if (!info.isFile()) {
      problems.push(`${declaredPath}: not a regular file`);
      return undefined;
    }
    if (info.size > maxFileBytes) {
      problems.push(`${declaredPath}: skipped: ${info.size} bytes is over the ${maxFileBytes}-byte limit`);
      return undefined;
    }
    const parsed = parseSkillFile(await readFile(realFile, "utf8"));
    if (!parsed.success) {
      problems.push(`${declaredPath}: ${parsed.error}`);
      return undefined;
    }
    return { ...parsed.value, origin: root.origin, path: realFile };
  } catch (error) {
    problems.push(`${declaredPath}: ${describe(error)}`);
    return undefined;
  }
}

function errnoCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    return typeof error.code === "string" ? error.code : undefined;
  }
  return undefined;
}

function describe(error: unknown): string {
  return errnoCode(error) ?? (error instanceof Error ? error.message : String(error));
}
