import { z } from "zod";
import { readModelEnvironment } from "../model/read-model-environment.js";

const OPENAI_API = "https://api.openai.com/v1";

/** What one `GET /models` against the configured endpoint found. */
export type ModelEndpointProbe =
  | {
      readonly success: true;
      readonly url: string;
      readonly status: number;
      /** The models the endpoint lists; empty when it lists none or answers the listing with 404. */
      readonly models: readonly string[];
    }
  | {
      readonly success: false;
      /** `unreachable` (no answer, or 5xx): the service is down; `refused` (401/403): the key is wrong. */
      readonly kind: "settings" | "unreachable" | "refused" | "status";
      /** The variable a person changes to fix it. */
      readonly variable: "OPENAI_BASE_URL" | "OPENAI_API_KEY";
      readonly url: string;
      readonly status?: number;
      readonly error: string;
      readonly fix: string;
    };

const listingSchema = z.object({ data: z.array(z.object({ id: z.string() }).loose()) }).loose();

/**
 * What went wrong underneath: fetch says only "fetch failed"; the socket's error on its cause
 * chain says ECONNREFUSED, ENOTFOUND or "bad port". Read by shape: errors may come from another realm.
 */
function describeCause(error: unknown): string {
  const field = (value: unknown, name: string): unknown =>
    typeof value === "object" && value !== null && name in value
      ? (value as Record<string, unknown>)[name]
      : undefined;
  if (field(error, "name") === "TimeoutError") return "no answer in time";
  let message = String(field(error, "message") ?? error);
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth += 1) {
    const code = field(current, "code");
    if (typeof code === "string" && code !== "") return code;
    const text = field(current, "message");
    if (typeof text === "string" && text !== "") message = text;
    current = field(current, "cause");
  }
  return message;
}

/**
 * One `GET {OPENAI_BASE_URL}/models` with the key: the cheapest request that proves the endpoint
 * answers and accepts the key. Servers without a listing (404) still count as reachable.
 */
export async function probeModelEndpoint(
  env: NodeJS.ProcessEnv = process.env,
  options: { readonly timeoutMs?: number } = {},
): Promise<ModelEndpointProbe> {
  const settings = readModelEnvironment(env);
  const base = (settings.success ? (settings.value.baseURL ?? OPENAI_API) : OPENAI_API).replace(/\/+$/, "");
  const url = `${base}/models`;
  if (!settings.success)
    return {
      success: false,
      kind: "settings",
      variable: settings.error.includes("OPENAI_API_KEY") ? "OPENAI_API_KEY" : "OPENAI_BASE_URL",
      url,
      error: settings.error,
      fix: "Fix the variable named above.",
    };
  const { apiKey } = settings.value;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
    });
  } catch (error) {
    return {
      success: false,
      kind: "unreachable",
      variable: "OPENAI_BASE_URL",
      url,
      error: `GET ${url} got no answer (${describeCause(error)})`,
      fix: "Start the model server, or set OPENAI_BASE_URL to one that answers (`agentforge mock-model` serves a scripted one).",
    };
  }
  const status = response.status;
  const text = await response.text();
  if (status === 401 || status === 403)
    return {
      success: false,
      kind: "refused",
      variable: "OPENAI_API_KEY",
      url,
      status,
      error: `GET ${url} answered ${status}: the endpoint refused ${apiKey === undefined ? "a request without a key" : "the key"}`,
      fix: "Set OPENAI_API_KEY to a key this endpoint accepts.",
    };
  if (status === 404) return { success: true, url, status, models: [] };
  if (status >= 500 || status === 429)
    return {
      success: false,
      kind: "unreachable",
      variable: "OPENAI_BASE_URL",
      url,
      status,
      error: `GET ${url} answered ${status}: the endpoint is not serving`,
      fix: "Try again when the model service is back, or point OPENAI_BASE_URL at another endpoint.",
    };
  if (status < 200 || status >= 300)
    return {
      success: false,
      kind: "status",
      variable: "OPENAI_BASE_URL",
      url,
      status,
      error: `GET ${url} answered ${status}`,
      fix: "Check that OPENAI_BASE_URL ends with the API's version path (for example /v1).",
    };
  let models: string[] = [];
  try {
    const listing = listingSchema.safeParse(JSON.parse(text));
    if (listing.success) models = listing.data.data.map((model) => model.id);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    // A 2xx that is not JSON still proves the endpoint answers; there is just no listing to show.
  }
  return { success: true, url, status, models };
}
