import { chmod, readFile, writeFile } from "node:fs/promises";

/**
 * Sets variables in a `.env` file, replacing a line that sets the same name and keeping every
 * other line. Values are written on one line (the private key in base64), so any reader of
 * `.env` files reads them back unchanged. The file holds secrets: only its owner may read it.
 */
export async function updateEnvFile(file: string, values: Readonly<Record<string, string>>): Promise<void> {
  const existing = await readFile(file, "utf8").catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  });
  const pending = new Map(Object.entries(values));
  const lines = existing === "" ? [] : existing.replace(/\n$/, "").split("\n");
  const kept = lines.map((line) => {
    const name = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (name === undefined || !pending.has(name)) return line;
    const value = pending.get(name) ?? "";
    pending.delete(name);
    return `${name}=${value}`;
  });
  for (const [name, value] of pending) kept.push(`${name}=${value}`);
  await writeFile(file, `${kept.join("\n")}\n`, { mode: 0o600 });
  // The mode above applies only to a new file; one that existed may have been readable by all.
  await chmod(file, 0o600);
}
