import { readModelEnvironment } from "../model/read-model-environment.js";
import { probeModelServer, type ModelServerFacts } from "../model/probe-model-server.js";

const OPENAI_API = "https://api.openai.com/v1";

/** What asking the configured endpoint found: its model list, or a one-token chat request. */
export type ModelEndpointProbe =
  | {
      readonly success: true;
      /** The `/models` URL. */
      readonly url: string;
      /** What `/models` answered; 200 when it listed models. */
      readonly status: number | undefined;
      /** The models the endpoint lists; empty when it has no listing. */
      readonly models: readonly string[];
      /** What the run's own probe found (`/v1/models`, llama.cpp's `/props`), when `/models` listed models. */
      readonly facts?: ModelServerFacts;
      /** The one-token chat request sent when `/models` did not list models. */
      readonly chat?: { readonly url: string; readonly status: number };
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

type Failure = Extract<ModelEndpointProbe, { success: false }>;

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
 * Asks `{OPENAI_BASE_URL}/models` (and `/props`) with the key, the same probe a run makes. An
 * endpoint without a model list gets one chat request for one token (`max_tokens: 1`), the
 * cheapest request that proves it answers and accepts the key.
 */
export async function probeModelEndpoint(
  env: NodeJS.ProcessEnv = process.env,
  options: { readonly timeoutMs?: number; readonly model?: string } = {},
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
  const timeoutMs = options.timeoutMs ?? 5_000;
  const probed = await probeModelServer({
    baseURL: base,
    timeoutMs,
    ...(apiKey === undefined ? {} : { apiKey }),
  });
  if (probed.success)
    return { success: true, url, status: 200, models: probed.value.servedModels, facts: probed.value };
  // Only an answer says something about the listing; no answer is the endpoint's problem.
  if (probed.cause !== undefined) return noAnswer("GET", url, probed.cause);
  if (probed.status === 401 || probed.status === 403) return refused("GET", url, probed.status, apiKey);
  const listing =
    probed.status === undefined ? `GET ${url} did not list models` : `GET ${url} answered ${probed.status}`;
  const chatUrl = `${base}/chat/completions`;
  let response: Response;
  try {
    response = await fetch(chatUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
      },
      body: JSON.stringify({
        model: options.model ?? settings.value.model,
        messages: [{ role: "user", content: "Say ok." }],
        max_tokens: 1,
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return noAnswer("POST", chatUrl, error, `${listing}; `);
  }
  const status = response.status;
  await response.body?.cancel();
  if (status >= 200 && status < 300)
    return { success: true, url, status: probed.status, models: [], chat: { url: chatUrl, status } };
  if (status === 401 || status === 403) return refused("POST", chatUrl, status, apiKey, `${listing}; `);
  const asked = `${listing}; a one-token POST ${chatUrl} answered ${status}`;
  if (status >= 500 || status === 429)
    return {
      success: false,
      kind: "unreachable",
      variable: "OPENAI_BASE_URL",
      url: chatUrl,
      status,
      error: `${asked}: the endpoint is not serving`,
      fix: "Try again when the model service is back, or point OPENAI_BASE_URL at another endpoint.",
    };
  return {
    success: false,
    kind: "status",
    variable: "OPENAI_BASE_URL",
    url: chatUrl,
    status,
    error: asked,
    fix: "Check that OPENAI_BASE_URL ends with the API's version path (for example /v1) and that AGENTFORGE_MODEL names a model it serves.",
  };
}

function noAnswer(method: string, url: string, cause: unknown, before = ""): Failure {
  return {
    success: false,
    kind: "unreachable",
    variable: "OPENAI_BASE_URL",
    url,
    error: `${before}${method} ${url} got no answer (${describeCause(cause)})`,
    fix: "Start the model server, or set OPENAI_BASE_URL to one that answers (`agentforge mock-model` serves a scripted one).",
  };
}

function refused(
  method: string,
  url: string,
  status: number,
  apiKey: string | undefined,
  before = "",
): Failure {
  return {
    success: false,
    kind: "refused",
    variable: "OPENAI_API_KEY",
    url,
    status,
    error: `${before}${method} ${url} answered ${status}: the endpoint refused ${apiKey === undefined ? "a request without a key" : "the key"}`,
    fix: "Set OPENAI_API_KEY to a key this endpoint accepts.",
  };
}
