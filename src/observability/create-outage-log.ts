export interface OutageLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface OutageLogOptions {
  /** What is down, as a person names it: "Redis". */
  readonly service: string;
  /** The variable that points at it: "REDIS_URL". */
  readonly variable: string;
  readonly logger: OutageLogger;
  /** One request that succeeds only when the service answers; tried while it is down. */
  readonly probe: () => Promise<unknown>;
  /** How often a continuing outage is summarised. */
  readonly summaryMs?: number;
  /** How often the probe is tried while the service is down. */
  readonly probeMs?: number;
  readonly now?: () => number;
}

export interface OutageLog {
  /** A connection error: the first of an outage is logged, the rest counted into the summary. */
  reportError(error: unknown): void;
  readonly isDown: boolean;
  close(): void;
}

function messageOf(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const code = "code" in error && typeof error.code === "string" ? error.code : undefined;
    const message = "message" in error && typeof error.message === "string" ? error.message : undefined;
    return code ?? message ?? JSON.stringify(error);
  }
  return String(error);
}

/**
 * Turns a connection's error stream into three kinds of line: the outage's first error, a summary
 * every `summaryMs` while it lasts (how many errors, the last one), and the recovery with how long
 * it took. A client that retries every second would otherwise print a line (or a stack) a second.
 */
export function createOutageLog(options: OutageLogOptions): OutageLog {
  const { logger, service, variable } = options;
  const now = options.now ?? Date.now;
  const summaryMs = options.summaryMs ?? 60_000;
  const probeMs = options.probeMs ?? 5_000;
  let since: number | null = null;
  let errors = 0;
  let sinceSummary = 0;
  let last = "";
  let summaryTimer: NodeJS.Timeout | undefined;
  let probeTimer: NodeJS.Timeout | undefined;
  let isProbing = false;
  let isClosed = false;

  function recover(): void {
    if (since === null) return;
    logger.info(
      { service, variable, downMs: now() - since, errors },
      `${service} answers again (${variable}) after ${Math.round((now() - since) / 1000)} s and ${errors} connection errors`,
    );
    since = null;
    clearInterval(summaryTimer);
    clearInterval(probeTimer);
  }

  function tryProbe(): void {
    if (isProbing || isClosed) return;
    isProbing = true;
    options
      .probe()
      .then(recover, (error: unknown) => {
        last = messageOf(error);
      })
      .finally(() => {
        isProbing = false;
      });
  }

  return {
    get isDown() {
      return since !== null;
    },
    reportError(error) {
      if (isClosed) return;
      last = messageOf(error);
      errors += 1;
      sinceSummary += 1;
      if (since !== null) return;
      since = now();
      errors = 1;
      sinceSummary = 0;
      logger.error(
        { service, variable, error: last },
        `${service} does not answer (${variable}): ${last}; retrying, further errors are summarised every ${Math.round(summaryMs / 1000)} s`,
      );
      summaryTimer = setInterval(() => {
        if (since === null) return;
        logger.warn(
          { service, variable, downMs: now() - since, errors: sinceSummary, error: last },
          `${service} still does not answer (${variable}) after ${Math.round((now() - since) / 1000)} s: ${sinceSummary} errors since the last summary, the last: ${last}`,
        );
        sinceSummary = 0;
      }, summaryMs);
      summaryTimer.unref();
      probeTimer = setInterval(tryProbe, probeMs);
      probeTimer.unref();
    },
    close() {
      isClosed = true;
      clearInterval(summaryTimer);
      clearInterval(probeTimer);
    },
  };
}
