import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A real temp directory per test, removed afterwards. */
export async function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "agentforge-persistence-"));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The repository root, for child processes that load the sources through tsx. */
export const repositoryRoot = new URL("../../../", import.meta.url);

export function sourceUrl(relativePath: string): string {
  return new URL(relativePath, repositoryRoot).href;
}
