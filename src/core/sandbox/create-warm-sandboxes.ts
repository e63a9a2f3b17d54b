import { lstat, readFile } from "node:fs/promises";
import type { CommandOutcome } from "../tools/tool.js";
import { buildBwrapArguments } from "./build-bwrap-arguments.js";
import type { PidsCgroupPool } from "./pids-cgroup-pool.js";
import type { SandboxMounts } from "./plan-sandbox-mounts.js";
import type { WorkspaceView } from "./plan-workspace-view.js";
import { findExecutable } from "./find-executable.js";
import { isSandboxError, SandboxError } from "./sandbox-error.js";
import type { SandboxLimits } from "./sandbox-limits.js";
import { startWarmSandbox, type WarmSandbox } from "./start-warm-sandbox.js";
import { WARM_SANDBOX_FDS, WARM_SANDBOX_SHELL } from "./warm-sandbox-protocol.js";
import { WARM_SANDBOX_SCRIPT } from "./warm-sandbox-script.js";

export interface WarmRunRequest {
  readonly bwrapPath: string;
  readonly mounts: SandboxMounts;
  readonly workspace: WorkspaceView;
  readonly cwd: string;
  readonly limits: SandboxLimits;
  /** The environment every command of the sandbox starts from, and this command's own. */
  readonly baseEnvironment: Readonly<Record<string, string>>;
  readonly environment: Readonly<Record<string, string>>;
  readonly script: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
}

export interface WarmSandboxes {
  /** Runs the command in a warm sandbox, or returns undefined when none can take it now (then run it cold). */
  run(request: WarmRunRequest): Promise<CommandOutcome | undefined>;
  close(): void;
  readonly openCount: number;
  /** Why the last warm sandbox could not start (commands then ran cold). */
  readonly problem: SandboxError | undefined;
}

const RETRY_AFTER_FAILURE_MS = 60_000;

export interface WarmSandboxesOptions {
  readonly pidsCgroups: PidsCgroupPool | undefined;
  /** A sandbox unused this long is closed. */
  readonly idleMs?: number;
  /** Most sandboxes kept open at once (one per workspace); the least recently used goes first. */
  readonly maxOpen?: number;
}

interface Entry {
  readonly sandbox: WarmSandbox;
  idleTimer?: NodeJS.Timeout;
}

async function identify(target: string): Promise<string> {
  const stats = await lstat(target);
  return `${target}@${stats.dev}:${stats.ino}`;
}

/**
 * Everything a warm sandbox was built from. The workspace's view is planned again before every
 * command, as the cold path does: other read-only paths, or a workspace folder that was replaced,
 * get a new sandbox, never the old mounts.
 */
async function describeSandbox(request: WarmRunRequest): Promise<string> {
  const identities = await Promise.all(
    [request.workspace.root, ...request.workspace.readOnlyPaths].map(identify),
  );
  return JSON.stringify([
    identities,
    request.workspace.access,
    request.mounts,
    request.baseEnvironment,
    request.limits.maxProcesses,
    request.limits.maxTmpBytes,
  ]);
}

function differences(
  base: Readonly<Record<string, string>>,
  wanted: Readonly<Record<string, string>>,
): { assignments: string[]; removals: string[] } {
  const assignments = Object.entries(wanted)
    .filter(([name, value]) => base[name] !== value)
    .map(([name, value]) => `${name}=${value}`);
  const removals = Object.keys(base).filter((name) => !(name in wanted));
  return { assignments, removals };
}

/**
 * Keeps one warm sandbox per workspace so that a command costs about a plain fork and exec. A
 * sandbox serves one command at a time: a command that finds it busy (or needing a rebuild while
 * one is starting) runs cold, with its own fresh sandbox, and loses nothing but time.
 */
export function createWarmSandboxes(options: WarmSandboxesOptions): WarmSandboxes {
  const idleMs = options.idleMs ?? 30_000;
  const maxOpen = options.maxOpen ?? 2;
  const entries = new Map<string, Entry>();
  const starting = new Set<string>();
  let problem: SandboxError | undefined;
  let retryAfter = 0;

  let shell: Promise<Buffer> | undefined;
  // The bash that the sandbox shows at the first place on its PATH, read once.
  const readShell = (searchPath: string): Promise<Buffer> => {
    shell ??= (async () => {
      const found = await findExecutable("bash", searchPath);
      if (found === undefined)
        throw new SandboxError(
          "SANDBOX_UNAVAILABLE",
          "bash was not found on the sandbox's PATH.",
          "Install bash.",
        );
      return readFile(found);
    })();
    return shell;
  };

  const retire = (workspaceRoot: string, entry: Entry): void => {
    clearTimeout(entry.idleTimer);
    entry.sandbox.close();
    if (entries.get(workspaceRoot) === entry) entries.delete(workspaceRoot);
  };

  const start = async (request: WarmRunRequest, key: string): Promise<Entry> => {
    const lease = await options.pidsCgroups?.acquire(request.limits.maxProcesses + 1);
    try {
      const sandbox = await startWarmSandbox({
        key,
        bwrapPath: request.bwrapPath,
        args: buildBwrapArguments({
          mounts: request.mounts,
          workspace: request.workspace,
          cwd: request.workspace.root,
          tmpBytes: request.limits.maxTmpBytes,
          network: "none",
          environment: request.baseEnvironment,
          command: [
            WARM_SANDBOX_SHELL,
            "--noprofile",
            "--norc",
            "-c",
            WARM_SANDBOX_SCRIPT,
            "agentforge-warm-sandbox",
            request.workspace.root,
            ...request.workspace.readOnlyPaths,
          ],
          gateFds: { infoFd: WARM_SANDBOX_FDS.info, ...(lease ? { blockFd: WARM_SANDBOX_FDS.block } : {}) },
          // The program is pid 1 itself: it reaps orphans and its end tears the namespace down.
          asPidOne: true,
          executeOnlyFile: { fd: WARM_SANDBOX_FDS.shell, path: WARM_SANDBOX_SHELL },
        }),
        environment: request.baseEnvironment,
        cwd: request.workspace.root,
        shell: await readShell(request.mounts.path),
        ...(lease ? { lease } : {}),
      });
      return { sandbox };
    } catch (error) {
      lease?.release();
      throw error;
    }
  };

  return {
    get openCount(): number {
      return entries.size;
    },
    get problem(): SandboxError | undefined {
      return problem;
    },
    async run(request: WarmRunRequest): Promise<CommandOutcome | undefined> {
      // One sandbox per workspace and access: a read-only subagent does not evict its parent's.
      const root = `${request.workspace.root}\0${request.workspace.access}`;
      if (starting.has(root)) return undefined;
      const key = await describeSandbox(request);
      let entry = entries.get(root);
      if (entry && (!entry.sandbox.isOpen || entry.sandbox.key !== key)) {
        if (entry.sandbox.isBusy && entry.sandbox.isOpen) return undefined;
        retire(root, entry);
        entry = undefined;
      }
      if (entry?.sandbox.isBusy) return undefined;
      if (entry === undefined) {
        if (Date.now() < retryAfter) return undefined;
        starting.add(root);
        try {
          entry = await start(request, key);
        } catch (error) {
          // The cold path still works without it; say why in `problem` and try again later.
          if (!isSandboxError(error)) throw error;
          problem = error;
          retryAfter = Date.now() + RETRY_AFTER_FAILURE_MS;
          return undefined;
        } finally {
          starting.delete(root);
        }
        entries.set(root, entry);
        // Too many open: close the least recently used idle ones; a busy one finishes first.
        for (const [otherRoot, other] of [...entries]) {
          if (entries.size <= maxOpen) break;
          if (other !== entry && !other.sandbox.isBusy) retire(otherRoot, other);
        }
      }
      clearTimeout(entry.idleTimer);
      // Most recently used last, so the first entry is the one to retire when too many are open.
      entries.delete(root);
      entries.set(root, entry);
      const { assignments, removals } = differences(request.baseEnvironment, request.environment);
      const outcome = await entry.sandbox.run({
        script: request.script,
        cwd: request.cwd,
        assignments,
        removals,
        timeoutMs: request.timeoutMs,
        maxOutputBytes: request.maxOutputBytes,
        killAfterOutputBytes: request.limits.killAfterOutputBytes,
        ...(request.signal ? { signal: request.signal } : {}),
      });
      const used = entry;
      if (!used.sandbox.isOpen) retire(root, used);
      else {
        used.idleTimer = setTimeout(() => retire(root, used), idleMs);
        used.idleTimer.unref();
      }
      return outcome;
    },
    close(): void {
      for (const [root, entry] of [...entries]) retire(root, entry);
    },
  };
}
