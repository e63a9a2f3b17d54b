import { randomBytes } from "node:crypto";

/**
 * The secrets the App runs with, each known to the test with every form it could leak in. A
 * planted program that learnt one would write it into the work tree, and from there into the
 * pushed commit, a comment or the trace.
 */
export interface PlantedSecrets {
  readonly privateKey: string;
  readonly webhookSecret: string;
  readonly openAiKey: string;
  readonly redisPassword: string;
  /**
   * Values that look like nothing secret, which no redactor would mask: one in the App's
   * environment, one in a file of its data folder. Seen anywhere, they show the host was read.
   */
  readonly canaryVariable: string;
  readonly canaryFile: string;
  /** Forms to look for, by secret name; the installation token is added once the stand-in issued it. */
  forms(installationToken: string): Readonly<Record<string, readonly string[]>>;
}

const random = (bytes: number): string => randomBytes(bytes).toString("hex");

/** Lines of the key's body: any of them in a dump means the key was readable. */
function keyLines(privateKey: string): string[] {
  return privateKey
    .split("\n")
    .filter((line) => line.length > 40 && !line.startsWith("-----"))
    .slice(1, 4);
}

export function createPlantedSecrets(privateKey: string): PlantedSecrets {
  const webhookSecret = `whsec-hostile-${random(12)}`;
  const openAiKey = `sk-hostile-${random(16)}`;
  const redisPassword = `redis-pw-${random(12)}`;
  const canaryVariable = `canary-environment-${random(8)}`;
  const canaryFile = `canary-file-${random(8)}`;
  return {
    privateKey,
    webhookSecret,
    openAiKey,
    redisPassword,
    canaryVariable,
    canaryFile,
    forms: (installationToken) => ({
      PRIVATE_KEY: keyLines(privateKey),
      WEBHOOK_SECRET: [webhookSecret],
      OPENAI_API_KEY: [openAiKey],
      REDIS_URL: [redisPassword],
      "canary in the App's environment": [canaryVariable],
      "canary in the App's data folder": [canaryFile],
      "installation token": [
        installationToken,
        Buffer.from(`x-access-token:${installationToken}`).toString("base64"),
      ],
    }),
  };
}

/** REDIS_URL with a password: the default user of a test Redis takes any (`nopass`). */
export function redisUrlWithPassword(redisUrl: string, password: string): string {
  const url = new URL(redisUrl);
  url.username = url.username === "" ? "default" : url.username;
  url.password = password;
  return url.toString();
}
