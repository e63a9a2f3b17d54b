import { generateKeyPairSync } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ProbotOctokit } from "probot";
import { DEFAULT_WEBHOOK_PATH } from "../../src/doors/github-app/create-webhook-server.js";

/** What the webhook benches share: the App's key, an Octokit without retries, a listening URL. */
export const benchPrivateKey = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "pkcs1", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
}).privateKey;

/** Retry and write throttle off, in the function form (the object form leaves the throttle on). */
export const UnthrottledOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { enabled: false },
}));

/** Listens on a free loopback port; resolves with the webhook URL there. */
export async function listenForWebhooks(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${DEFAULT_WEBHOOK_PATH}`;
}
