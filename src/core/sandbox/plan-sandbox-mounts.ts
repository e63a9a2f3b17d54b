import { lstat, readlink } from "node:fs/promises";
import path from "node:path";
import { isPathInside } from "../paths/index.js";

/** Folders whose contents are the host's business; nothing under them is mounted from PATH. */
const PRIVATE_PREFIXES = [
  "/root",
  "/home",
  "/tmp",
  "/var",
  "/run",
  "/proc",
  "/sys",
  "/dev",
  "/work",
  "/mnt",
  "/media",
  "/srv",
  "/boot",
  "/etc",
];
/** Top-level names that are symlinks into /usr on merged-usr systems, or real folders elsewhere. */
const SYSTEM_TOP_LEVEL = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** Readable by the sandbox user (it maps to the file owner) but none of its business. */
const DEFAULT_MASKED = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/sudoers",
  "/etc/sudoers.d",
  "/etc/ssl/private",
];
/** Variables that name files the host keeps secrets in. */
const SECRET_FILE_VARIABLES = ["AGENTFORGE_CONFIG", "PRIVATE_KEY_PATH", "GOOGLE_APPLICATION_CREDENTIALS"];

export type SystemEntry =
  | { readonly kind: "symlink"; readonly path: string; readonly target: string }
  | { readonly kind: "directory"; readonly path: string };

export interface MaskedPath {
  readonly path: string;
  readonly isDirectory: boolean;
}

export interface SandboxMounts {
  readonly system: readonly SystemEntry[];
  /** Tool installations outside /usr found on the host PATH (e.g. a Node under /opt). */
  readonly toolRoots: readonly string[];
  readonly masked: readonly MaskedPath[];
  /** PATH inside the sandbox: only directories that are mounted. */
  readonly path: string;
}

async function statOrUndefined(target: string): Promise<Awaited<ReturnType<typeof lstat>> | undefined> {
  try {
    return await lstat(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES") return undefined;
    throw error;
  }
}

/** The installation root of a PATH entry: `/opt/node/bin` → `/opt/node`. */
function toolRootOf(directory: string): string {
  const base = path.basename(directory);
  return base === "bin" || base === "sbin" ? path.dirname(directory) : directory;
}

export interface PlanSandboxMountsOptions {
  readonly hostEnv: NodeJS.ProcessEnv;
  readonly basePath: string;
  readonly extraReadOnlyPaths?: readonly string[];
  readonly hiddenPaths?: readonly string[];
}

/** Looks at the host once to decide what the read-only system view of the sandbox contains. */
export async function planSandboxMounts(options: PlanSandboxMountsOptions): Promise<SandboxMounts> {
  const system: SystemEntry[] = [];
  for (const entry of SYSTEM_TOP_LEVEL) {
    const stats = await statOrUndefined(entry);
    if (stats?.isSymbolicLink()) system.push({ kind: "symlink", path: entry, target: await readlink(entry) });
    else if (stats?.isDirectory()) system.push({ kind: "directory", path: entry });
  }

  const pathEntries = options.basePath.split(":");
  const toolRoots: string[] = [];
  for (const directory of (options.hostEnv["PATH"] ?? "").split(":")) {
    if (!path.isAbsolute(directory) || pathEntries.includes(directory)) continue;
    const root = toolRootOf(path.normalize(directory));
    if (
      root === "/" ||
      isPathInside("/usr", root) ||
      PRIVATE_PREFIXES.some((prefix) => isPathInside(prefix, root))
    )
      continue;
    if (!(await statOrUndefined(directory))?.isDirectory()) continue;
    if (!toolRoots.includes(root)) toolRoots.push(root);
    pathEntries.push(directory);
  }
  for (const extra of options.extraReadOnlyPaths ?? []) {
    if ((await statOrUndefined(extra)) !== undefined && !toolRoots.includes(extra)) toolRoots.push(extra);
  }

  const maskCandidates = [
    ...DEFAULT_MASKED,
    ...SECRET_FILE_VARIABLES.flatMap((name) => {
      const value = options.hostEnv[name];
      return value && path.isAbsolute(value) ? [value] : [];
    }),
    ...(options.hiddenPaths ?? []),
  ];
  const masked: MaskedPath[] = [];
  for (const candidate of maskCandidates) {
    const stats = await statOrUndefined(candidate);
    if (stats === undefined || stats.isSymbolicLink()) continue;
    masked.push({ path: candidate, isDirectory: stats.isDirectory() });
  }
  return { system, toolRoots, masked, path: pathEntries.join(":") };
}
