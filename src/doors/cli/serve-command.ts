import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { EXIT_CODES, type CliIo } from "./cli-io.js";
import { holdYoungGeneration } from "./hold-young-generation.js";

/** sysexits' EX_UNAVAILABLE, the code the CLI already gives an unreachable model. */
const UNAVAILABLE = EXIT_CODES.modelUnavailable;

const SETUP_STEPS = (
  missing: readonly string[],
) => `AgentForge cannot start the GitHub App: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not set.

To register the app (once):
  1. Run \`npm start\` on your machine with no credentials in a terminal: it serves a setup page
     on http://localhost:3000. Open it and click "Register GitHub App". GitHub creates the app from
     app.yml (events and permissions) with this server's /api/github/webhooks (or WEBHOOK_PROXY_URL)
     as its webhook URL, and the page writes APP_ID, PRIVATE_KEY and WEBHOOK_SECRET to .env.
  2. Or register it by hand at https://github.com/settings/apps/new with the events and permissions
     listed in app.yml, generate a private key, and set:
       APP_ID=<the app id>  PRIVATE_KEY_PATH=<the .pem file>  WEBHOOK_SECRET=<the secret you chose>
  3. Install the app on a repository, then run \`agentforge serve\` again.
`;

/** `.env` in the working directory fills variables that are not set (what Probot's setup writes). */
export function loadDotEnv(env: NodeJS.ProcessEnv, cwd = process.cwd()): void {
  const file = path.join(cwd, ".env");
  if (!existsSync(file)) return;
  for (const [name, value] of Object.entries(parseEnv(readFileSync(file, "utf8")))) {
    if (env[name] === undefined) env[name] = value;
  }
}

/** Waits for SIGTERM or SIGINT; returns which one arrived. */
export function waitForStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      resolve(signal);
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = "code" in error && typeof error.code === "string" ? ` [${error.code}]` : "";
    return `${error.message}${code}`;
  }
  return String(error);
}

/**
 * `agentforge serve`: the GitHub App. With REDIS_URL it only takes webhooks in (run
 * `agentforge worker` elsewhere); without it, workers run in this process on the embedded queue.
 */
export async function serveCommand(io: CliIo, mode: "serve" | "worker" = "serve"): Promise<number> {
  loadDotEnv(io.env);
  // Start-up's module loading would otherwise leave the idle server's young generation at its largest.
  const releaseYoungGeneration = holdYoungGeneration();
  // The App door owns probot; the CLI only launches it.
  const { AppStartError, readAppServerSettings, startAppServer, startSetupServer } =
    await import("../github-app/start-app-server.js");
  const settings = await readAppServerSettings(io.env);
  if (!settings.success) {
    releaseYoungGeneration();
    if (settings.missing.length > 0) io.stderr(SETUP_STEPS(settings.missing));
    for (const problem of settings.problems) io.stderr(`agentforge ${mode}: ${problem}\n`);
    const canOfferSetup =
      mode === "serve" && settings.problems.length === 0 && io.isTty && io.env.NODE_ENV !== "production";
    if (!canOfferSetup) return EXIT_CODES.usage;
    try {
      const port = Number((io.env.PORT ?? "").trim() || "3000");
      const setup = await startSetupServer({
        env: io.env,
        port: Number.isInteger(port) ? port : 3000,
        host: (io.env.HOST ?? "").trim() || "localhost",
      });
      io.stderr(`Setup page: ${setup.url} (Ctrl-C to stop)\n`);
      await waitForStopSignal();
      await setup.stop();
      return EXIT_CODES.ok;
    } catch (error) {
      io.stderr(`agentforge serve: the setup page could not start: ${describe(error)}\n`);
      return EXIT_CODES.usage;
    }
  }
  if (mode === "worker" && !settings.value.hasRedis) {
    io.stderr(
      "agentforge worker: REDIS_URL is not set. Without Redis the queue is embedded and `agentforge serve` runs the workers itself; set REDIS_URL to run workers apart.\n",
    );
    return EXIT_CODES.usage;
  }
  let server: Awaited<ReturnType<typeof startAppServer>>;
  try {
    server = await startAppServer({ settings: settings.value, env: io.env, mode });
  } catch (error) {
    if (error instanceof AppStartError) {
      io.stderr(`agentforge ${mode}: cannot start: ${error.message}\n`);
      // 69 is EX_UNAVAILABLE: a service is down, the settings may be right; try again later.
      return error.code === "DEPENDENCY_UNAVAILABLE" ? UNAVAILABLE : EXIT_CODES.usage;
    }
    io.stderr(`agentforge ${mode}: could not start: ${describe(error)}\n`);
    return EXIT_CODES.usage;
  } finally {
    releaseYoungGeneration();
  }
  if (server.url !== null)
    io.stdout(
      `AgentForge App listening on ${server.url} (webhooks at /api/github/webhooks, health at /healthz)\n`,
    );
  else io.stdout(`AgentForge worker started (health at ${server.healthUrl}/healthz, metrics at /metrics)\n`);
  const signal = await waitForStopSignal();
  io.stderr(
    `agentforge ${mode}: ${signal} received; no new work is taken, running tasks finish (send it again to stop at once; they resume from their checkpoints)\n`,
  );
  // A second signal ends the process now: a stopped task is resumed from its checkpoint later.
  void waitForStopSignal().then((again) => {
    io.stderr(`agentforge ${mode}: ${again} received again; stopping now\n`);
    process.exit(EXIT_CODES.cancelled);
  });
  await server.stop();
  // Everything the App opened is closed by now; this only ends a process that some library's
  // socket would keep alive, and it is unref'd so a clean exit is never delayed.
  setTimeout(() => process.exit(process.exitCode ?? EXIT_CODES.ok), 2_000).unref();
  return EXIT_CODES.ok;
}
