import type { DoctorCheck } from "../../core/runtime/index.js";
import { probeGitHubApp, probeRedis, type DependencyProbe } from "./probe-app-dependencies.js";
import { readAppServerSettings } from "./read-app-server-settings.js";

const CREDENTIALS = ["APP_ID", "PRIVATE_KEY", "PRIVATE_KEY_PATH", "WEBHOOK_SECRET"] as const;
const REGISTER_FIX =
  "Run `npm start` in a terminal and register the app from its setup page, or set APP_ID, PRIVATE_KEY (or PRIVATE_KEY_PATH) and WEBHOOK_SECRET from the app's settings page (see .env.example).";

function fromProbe(name: string, probe: DependencyProbe): DoctorCheck {
  return probe.success
    ? { name, status: "ok", detail: probe.detail }
    : { name, status: "problem", detail: probe.error, fix: probe.fix };
}

/**
 * The App's part of `agentforge doctor`: its credentials (one authenticated `GET /app`), the
 * webhook secret, and Redis (one `PING`) when REDIS_URL is set. Without any App variable the
 * credentials are only a warning: the CLI and the Action do not need them.
 */
export async function runAppDoctorChecks(env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  const isSet = (name: string): boolean => (env[name] ?? "").trim() !== "";
  const checks: DoctorCheck[] = [];
  const redisUrl = (env["REDIS_URL"] ?? "").trim();
  const redis: Promise<DoctorCheck> =
    redisUrl === ""
      ? Promise.resolve({
          name: "redis",
          status: "ok",
          detail: "REDIS_URL not set: the embedded queue in the data dir (one machine)",
        })
      : probeRedis(redisUrl).then((probe) => fromProbe("redis", probe));
  if (!CREDENTIALS.some(isSet)) {
    checks.push({
      name: "github app",
      status: "warning",
      detail: "not configured (no APP_ID, PRIVATE_KEY or WEBHOOK_SECRET): only `serve` and `worker` need it",
      fix: REGISTER_FIX,
    });
    return [...checks, await redis];
  }
  const settings = await readAppServerSettings(env);
  const problems = settings.success ? [] : settings.problems;
  const missing = settings.success ? [] : settings.missing;
  const credentialProblems = problems.filter((line) => /^(APP_ID|PRIVATE_KEY|PRIVATE_KEY_PATH):/.test(line));
  const credentialsMissing = missing.filter((name) => name !== "WEBHOOK_SECRET");
  if (credentialProblems.length > 0 || credentialsMissing.length > 0) {
    checks.push({
      name: "github app",
      status: "problem",
      detail: [...credentialsMissing.map((name) => `${name} is not set`), ...credentialProblems].join("; "),
      fix: REGISTER_FIX,
    });
  } else {
    const baseUrl = settings.success
      ? settings.value.baseUrl
      : isSet("GHE_HOST")
        ? `${env["GHE_PROTOCOL"] ?? "https"}://${env["GHE_HOST"]}/api/v3`
        : undefined;
    const privateKey = settings.success ? settings.value.privateKey : await readKeyAgain(env);
    const probe = await probeGitHubApp({
      appId: (env["APP_ID"] ?? "").trim(),
      privateKey,
      ...(baseUrl === undefined ? {} : { baseUrl }),
    });
    checks.push(fromProbe("github app", probe));
  }
  checks.push(
    missing.includes("WEBHOOK_SECRET")
      ? {
          name: "webhook secret",
          status: "problem",
          detail: "WEBHOOK_SECRET is not set: every webhook would be refused for its signature",
          fix: "Set WEBHOOK_SECRET to the secret in the app's settings (General → Webhook secret).",
        }
      : { name: "webhook secret", status: "ok", detail: "WEBHOOK_SECRET is set" },
  );
  const others = problems.filter((line) => !credentialProblems.includes(line));
  if (others.length > 0)
    checks.push({
      name: "app settings",
      status: "problem",
      detail: others.join("; "),
      fix: "Fix each variable named above (see .env.example).",
    });
  return [...checks, await redis];
}

/** The key as `serve` reads it, when another setting kept the whole settings from parsing. */
async function readKeyAgain(env: NodeJS.ProcessEnv): Promise<string> {
  const only = await readAppServerSettings({
    APP_ID: env["APP_ID"],
    PRIVATE_KEY: env["PRIVATE_KEY"],
    PRIVATE_KEY_PATH: env["PRIVATE_KEY_PATH"],
    WEBHOOK_SECRET: "unused",
  });
  return only.success ? only.value.privateKey : "";
}
