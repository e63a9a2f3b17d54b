import type { GitHubRequester } from "../pull-request/github-requester.js";
import type { DoorLogger } from "../github-logger.js";

export type PermissionLevel = "read" | "triage" | "write" | "maintain" | "admin";

const RANK: Readonly<Record<PermissionLevel, number>> = {
  read: 1,
  triage: 2,
  write: 3,
  maintain: 4,
  admin: 5,
};

export interface Sender {
  readonly login: string;
  readonly type?: string | undefined;
}

/** Bots, including this app, never command it: their text may be built from untrusted input. */
export function isBotSender(sender: Sender): boolean {
  return sender.type === "Bot" || sender.login.toLowerCase().endsWith("[bot]");
}

export type AuthorizationResult =
  | { readonly authorized: true; readonly permission: PermissionLevel }
  | {
      readonly authorized: false;
      readonly permission: PermissionLevel | null;
      readonly reason: "bot" | "insufficient-permission" | "lookup-failed";
    };

export interface AuthorizeCommenterOptions {
  readonly owner: string;
  readonly repo: string;
  readonly username: string;
  readonly senderType?: string | undefined;
  readonly minimumPermission: Exclude<PermissionLevel, "read">;
  readonly logger?: DoorLogger;
}

function asLevel(value: unknown): PermissionLevel | null {
  return typeof value === "string" && value in RANK ? (value as PermissionLevel) : null;
}

/**
 * The highest level the collaborator-permission answer proves. `role_name` names the real role
 * (maintain, triage) or a custom role; `permission` is the legacy field where maintain reads
 * "write" and triage "read"; `user.permissions` holds the booleans. Take the best known signal.
 */
export function permissionFromResponse(data: unknown): PermissionLevel | null {
  if (typeof data !== "object" || data === null) return null;
  const record = data as {
    role_name?: unknown;
    permission?: unknown;
    user?: { permissions?: unknown } | null;
  };
  const levels: PermissionLevel[] = [];
  const role = asLevel(record.role_name);
  if (role !== null) levels.push(role);
  const legacy = asLevel(record.permission);
  if (legacy !== null) levels.push(legacy);
  const flags = record.user?.permissions;
  if (typeof flags === "object" && flags !== null) {
    const map = flags as Record<string, unknown>;
    if (map["admin"] === true) levels.push("admin");
    else if (map["maintain"] === true) levels.push("maintain");
    else if (map["push"] === true) levels.push("write");
    else if (map["triage"] === true) levels.push("triage");
  }
  if (levels.length === 0) return null;
  return levels.reduce((best, level) => (RANK[level] > RANK[best] ? level : best));
}

export function meetsPermission(level: PermissionLevel | null, minimum: PermissionLevel): boolean {
  return level !== null && RANK[level] >= RANK[minimum];
}

/**
 * Decides whether a commenter may command the app. Fails closed: an API error means "no",
 * logged with the status so an operator can see why a command was ignored.
 */
export async function authorizeCommenter(
  octokit: GitHubRequester,
  options: AuthorizeCommenterOptions,
): Promise<AuthorizationResult> {
  if (isBotSender({ login: options.username, type: options.senderType })) {
    return { authorized: false, permission: null, reason: "bot" };
  }
  let permission: PermissionLevel | null;
  try {
    const response = await octokit.request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", {
      owner: options.owner,
      repo: options.repo,
      username: options.username,
    });
    permission = permissionFromResponse(response.data);
  } catch (error) {
    const status =
      typeof error === "object" && error !== null && "status" in error ? error.status : undefined;
    options.logger?.warn(
      { err: error, status, owner: options.owner, repo: options.repo, username: options.username },
      "permission lookup failed; treating the commenter as unauthorized",
    );
    return { authorized: false, permission: null, reason: "lookup-failed" };
  }
  if (!meetsPermission(permission, options.minimumPermission)) {
    return { authorized: false, permission, reason: "insufficient-permission" };
  }
  return { authorized: true, permission: permission! };
}
