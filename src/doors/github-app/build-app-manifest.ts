import { parse } from "yaml";

export interface AppManifestOptions {
  /** app.yml's text; null when there is none. */
  readonly appYml: string | null;
  /** Where GitHub sends webhooks: this server's webhook path, or the WEBHOOK_PROXY_URL channel. */
  readonly webhookUrl: string;
  /** This setup server as the browser reached it, for GitHub's redirect back with the code. */
  readonly setupUrl: string;
}

export type AppManifestResult =
  | { readonly success: true; readonly value: Record<string, unknown> }
  | { readonly success: false; readonly error: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The manifest GitHub registers the app from: app.yml's name, events and permissions, with the
 * webhook URL and the redirect this deployment needs. app.yml's `hook_attributes.url` is only a
 * placeholder: it never reaches GitHub, or the app would receive no webhook at all.
 */
export function buildAppManifest(options: AppManifestOptions): AppManifestResult {
  let manifest: unknown = {};
  if (options.appYml !== null) {
    try {
      manifest = parse(options.appYml) ?? {};
    } catch (error) {
      return { success: false, error: `app.yml: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  if (!isRecord(manifest)) return { success: false, error: "app.yml: expected a mapping at the top" };
  const hook = isRecord(manifest["hook_attributes"]) ? manifest["hook_attributes"] : {};
  return {
    success: true,
    value: {
      name: "AgentForge",
      public: false,
      ...manifest,
      hook_attributes: { active: true, ...hook, url: options.webhookUrl },
      redirect_url: `${options.setupUrl}/probot/setup`,
    },
  };
}
