import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { runHostGit, type HostGitOptions, type HostRepository } from "../../../core/git/index.js";

/** Where in a mirror its presence view lives: host-only, beside the mirror's own files. */
const VIEW_FOLDER = "agentforge-presence";

/**
 * A git directory that only borrows the mirror's objects (an alternate), with no promisor remote:
 * asking it about an object the partial mirror lacks answers "missing" at once, where the mirror
 * itself would fetch the object lazily, one request per object and without the token. Written
 * once per mirror, by the host, without starting git.
 */
export async function openPresenceView(mirror: HostRepository): Promise<HostRepository> {
  const view = path.join(mirror.gitDirectory, VIEW_FOLDER);
  await Promise.all(
    ["objects/info", "refs"].map((folder) => mkdir(path.join(view, folder), { recursive: true })),
  );
  await Promise.all([
    writeFile(path.join(view, "HEAD"), "ref: refs/heads/main\n"),
    writeFile(path.join(view, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"),
    writeFile(
      path.join(view, "objects", "info", "alternates"),
      `${path.resolve(mirror.gitDirectory, "objects")}\n`,
    ),
  ]);
  return { gitDirectory: view };
}

/** The ids of `objects` the mirror does not hold, read through its presence view (nothing is fetched). */
export async function listAbsentObjects(
  view: HostRepository,
  objects: readonly string[],
  options: HostGitOptions,
): Promise<string[]> {
  if (objects.length === 0) return [];
  const { stdout } = await runHostGit(view, ["cat-file", "--batch-check=%(objectname) %(objecttype)"], {
    ...options,
    input: `${objects.join("\n")}\n`,
  });
  const absent: string[] = [];
  for (const line of stdout.split("\n")) {
    const [id, state] = line.trim().split(" ");
    if (id !== undefined && state === "missing") absent.push(id);
  }
  return absent;
}
