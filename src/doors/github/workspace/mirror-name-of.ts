import { createHash } from "node:crypto";

/** A readable, collision-free folder name for a remote's mirror. */
export function mirrorNameOf(cloneUrl: string): string {
  const readable = cloneUrl
    .replace(/^[a-z]+:\/\//i, "")
    .replace(/\.git$/, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .slice(-60);
  const digest = createHash("sha256").update(cloneUrl).digest("hex").slice(0, 12);
  return `${readable}-${digest}.git`;
}
