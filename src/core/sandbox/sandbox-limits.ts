/** Resource limits of one sandboxed command. */
export interface SandboxLimits {
  /** Processes and threads the command may have at once (`ulimit -u`, or a pids cgroup as root). */
  readonly maxProcesses: number;
  /** Largest file the command may write (`ulimit -f`); past it the writer gets SIGXFSZ. */
  readonly maxFileBytes: number;
  /** Address space per process (`ulimit -v`); off by default because Node and the JVM reserve far more than they use. */
  readonly maxMemoryBytes?: number;
  /** Bytes of stdout plus stderr kept for the result. */
  readonly maxOutputBytes: number;
  /** Output past which the command is killed as a flood. */
  readonly killAfterOutputBytes: number;
  /** Upper bound on any requested timeout. */
  readonly maxTimeoutMs: number;
  /** Size of the private in-memory /tmp and of HOME (each). */
  readonly maxTmpBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  maxProcesses: 1024,
  maxFileBytes: 1024 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
  killAfterOutputBytes: 64 * 1024 * 1024,
  maxTimeoutMs: 30 * 60 * 1000,
  maxTmpBytes: 512 * 1024 * 1024,
};

/**
 * Closes every descriptor but stdin, stdout and stderr: one the harness inherited without
 * close-on-exec (from a supervisor, a socket it was started with) must not reach the command.
 * No redirection on the loop: bash would keep stderr's copy in a descriptor the loop closes.
 */
const CLOSE_INHERITED_DESCRIPTORS =
  'if [[ -d /proc/self/fd ]]; then for __agentforge_fd in /proc/self/fd/*; do __agentforge_fd=${__agentforge_fd##*/}; ((__agentforge_fd > 2)) && eval "exec ${__agentforge_fd}>&-"; done; unset __agentforge_fd; fi';

/**
 * Prefixes the command with the rlimits and the descriptor clean-up, on the same line so bash's
 * line numbers in error messages stay those of the command. Builtins only: no extra process.
 */
export function withLimits(command: string, limits: SandboxLimits): string {
  const parts = [
    `ulimit -u ${Math.floor(limits.maxProcesses)}`,
    `ulimit -f ${Math.ceil(limits.maxFileBytes / 1024)}`,
  ];
  if (limits.maxMemoryBytes !== undefined) parts.push(`ulimit -v ${Math.ceil(limits.maxMemoryBytes / 1024)}`);
  return `${parts.join(" && ")} || exit 125; ${CLOSE_INHERITED_DESCRIPTORS}; ${command}`;
}
