import { createHash } from "node:crypto";

/** What model APIs accept as a function name. */
export const MODEL_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_NAME_LENGTH = 64;
const SEPARATOR = "__";
const SHORT_HASH_LENGTH = 8;

export interface McpToolIdentity {
  readonly server: string;
  readonly tool: string;
}

/** Replaces every character a model API refuses with `_`; an empty part becomes `_`. */
export function sanitizeNamePart(part: string): string {
  const cleaned = part.replace(/[^a-zA-Z0-9_-]/g, "_");
  return cleaned.length > 0 ? cleaned : "_";
}

function identityKey(identity: McpToolIdentity): string {
  // A NUL cannot appear in either name, so distinct pairs never share a key.
  return `${identity.server}\u0000${identity.tool}`;
}

function hashOf(identity: McpToolIdentity, length: number): string {
  return createHash("sha256").update(identityKey(identity)).digest("hex").slice(0, length);
}

function withSuffix(base: string, suffix: string): string {
  const room = MAX_NAME_LENGTH - suffix.length - 1;
  return `${base.slice(0, room)}-${suffix}`;
}

function baseName(identity: McpToolIdentity): string {
  const joined = `${sanitizeNamePart(identity.server)}${SEPARATOR}${sanitizeNamePart(identity.tool)}`;
  // Too long: cut and add a hash of the original pair, so two long names that share a prefix differ.
  return joined.length <= MAX_NAME_LENGTH ? joined : withSuffix(joined, hashOf(identity, SHORT_HASH_LENGTH));
}

/**
 * Model-facing names for MCP tools: `server__tool`, valid for model APIs, the same for the same
 * inputs whatever their order, and unique. Names that collide after sanitising (`a.b` and `a_b`)
 * all get a suffix hashed from their original server and tool, so none depends on which server
 * was listed first. `reserved` holds the built-in names an MCP tool must never shadow.
 */
export function assignMcpToolNames(
  identities: readonly McpToolIdentity[],
  reserved: ReadonlySet<string> = new Set(),
): Map<string, string> {
  const unique = new Map<string, McpToolIdentity>();
  for (const identity of identities) unique.set(identityKey(identity), identity);
  const byBase = new Map<string, McpToolIdentity[]>();
  for (const identity of unique.values()) {
    const base = baseName(identity);
    byBase.set(base, [...(byBase.get(base) ?? []), identity]);
  }
  const names = new Map<string, string>();
  const taken = new Set<string>(reserved);
  // Names that need no suffix go first so a suffixed name can never take one of them.
  for (const [base, group] of byBase) {
    if (group.length === 1 && !reserved.has(base)) {
      names.set(identityKey(group[0]!), base);
      taken.add(base);
    }
  }
  const sortedBases = [...byBase.keys()].sort();
  for (const base of sortedBases) {
    const group = byBase.get(base)!;
    if (group.length === 1 && names.has(identityKey(group[0]!))) continue;
    const sorted = [...group].sort((left, right) => identityKey(left).localeCompare(identityKey(right)));
    for (const identity of sorted) {
      let length = SHORT_HASH_LENGTH;
      let name = withSuffix(base, hashOf(identity, length));
      // A clash with a suffixed name is only possible by chance; a longer hash settles it.
      while (taken.has(name) && length < 64) {
        length += 4;
        name = withSuffix(base, hashOf(identity, length));
      }
      names.set(identityKey(identity), name);
      taken.add(name);
    }
  }
  return names;
}

export function mcpToolNameFor(
  names: ReadonlyMap<string, string>,
  identity: McpToolIdentity,
): string | undefined {
  return names.get(identityKey(identity));
}
