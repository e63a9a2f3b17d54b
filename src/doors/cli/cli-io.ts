/** Where a command writes; tests pass their own. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly isTty: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly readStdin: () => Promise<string>;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    isTty: process.stdout.isTTY === true,
    env: process.env,
    readStdin: async () => {
      if (process.stdin.isTTY) return "";
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
  };
}

/** Documented exit codes of the CLI. */
export const EXIT_CODES = {
  ok: 0,
  /** The run ended without a final answer, a policy rejection, or failed eval tasks. */
  failure: 1,
  /** policy check: needs confirmation. */
  needsConfirmation: 2,
  /** Bad usage or configuration: fix the command line or the config. */
  usage: 64,
  /** The model could not be reached. */
  modelUnavailable: 69,
  /** Cancelled (Ctrl-C). */
  cancelled: 130,
} as const;
