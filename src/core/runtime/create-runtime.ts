import { readRunLimits, type RunLimits } from "../config/run-limits.js";
import type { Redactor } from "../safety/create-redactor.js";
import type { AgentRunner } from "../agent-run.js";
import { loadOperatorConfig } from "../config/load-operator-config.js";
import type { OperatorConfig } from "../config/operator-config-schema.js";
import { createAgentRunner, type AgentRunnerDependencies } from "../create-agent-runner.js";
import { createOpenAIModelClient } from "../model/create-openai-model-client.js";
import type { ModelClient } from "../model/model-types.js";
import { readModelEnvironment } from "../model/read-model-environment.js";
import { probeModelServer, type ModelServerFacts } from "../model/probe-model-server.js";
import { defaultReserveOutputTokens } from "../context/index.js";
import { resolveDataDir } from "../persistence/resolve-data-dir.js";
import { createSandboxRunner } from "../sandbox/create-sandbox-runner.js";
import { readSandboxMode } from "../sandbox/sandbox-mode.js";
import { RuntimeError } from "./runtime-error.js";
import { DEFAULT_CONTEXT_WINDOW, resolveModelSettings } from "./resolve-model-settings.js";
import type { CommandRunner } from "../tools/tool.js";
import { createModelChoice, type ModelChoice } from "./create-model-choice.js";

export interface RuntimeOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** An explicit operator config path (`--config`); otherwise AGENTFORGE_CONFIG. */
  readonly configPath?: string;
  readonly contextWindow?: number;
  /** A door's `--max-output-tokens` and `--temperature`; they win over the operator config. */
  readonly generation?: { readonly maxOutputTokens?: number; readonly temperature?: number };
  readonly maxTurns?: number;
  /** Secrets the door holds besides the model key (installation tokens, webhook secret...). */
  readonly secrets?: readonly string[];
  /**
   * The door's own redactor (the App's log uses it too): every run redacts with it, and learns the
   * model key into it. Otherwise the runtime makes one from `secrets`.
   */
  readonly redactor?: Redactor;
  readonly confirm?: AgentRunnerDependencies["confirm"];
  readonly stream?: boolean;
  /** Tests and benchmarks pass a model; otherwise it is built from OPENAI_* variables. */
  readonly model?: ModelClient;
  /** With `model`: makes the client of another allowed model (otherwise only `model` itself can run). */
  readonly createModel?: (name: string) => ModelClient;
  /** Models a task may choose besides the operator config's (the Action's `allowed-models` input). */
  readonly allowedModels?: readonly string[];
  /** Where start-up notes go (skipped MCP servers). */
  readonly log?: (message: string) => void;
}

/** Names MCP tools may not take. */
const BUILT_IN_TOOL_NAMES = [
  "read_file",
  "list_dir",
  "glob",
  "grep",
  "write_file",
  "edit_file",
  "apply_patch",
  "shell",
  "read_saved_output",
  "load_skill",
];

export interface Runtime extends ModelChoice {
  readonly runner: AgentRunner;
  /** The limits every run of this runtime works under (built once from the operator config). */
  readonly limits: RunLimits;
  readonly config: OperatorConfig;
  readonly configDigest: string;
  readonly dataDir: string;
  readonly model: ModelClient;
  readonly sandboxKind: "bwrap" | "none";
  /** The sandbox the agent's commands run in, with the operator's settings; doors reuse it for setup and test commands. */
  readonly commandRunner: CommandRunner;
  /** MCP servers that failed to start and were skipped. */
  readonly mcpProblems: readonly { readonly server: string; readonly message: string }[];
  /** Stops MCP servers and other children. */
  close(): Promise<void>;
}

/**
 * Reads the operator's world once (environment, operator config, data dir), validates it, and
 * builds the core's runner. Every door calls this, so they share one set of rules.
 */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const env = options.env ?? process.env;
  const loaded = await loadOperatorConfig(options.configPath ?? env.AGENTFORGE_CONFIG);
  if (!loaded.success) throw new RuntimeError("CONFIG_INVALID", loaded.error);
  const config = loaded.value;
  const sandboxMode = config.sandbox.kind ?? readSandboxModeOrThrow(env);
  const limits = readRunLimits(config, options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns });
  let model = options.model;
  let createModel = options.model === undefined ? undefined : options.createModel;
  let fallbacks: readonly string[] = config.fallback_models;
  const secrets = [...(options.secrets ?? [])];
  let contextWindow = options.contextWindow ?? config.context_window;
  const temperature = options.generation?.temperature ?? config.temperature;
  let maxOutputTokens = options.generation?.maxOutputTokens ?? config.max_output_tokens;
  if (!model) {
    const modelEnv = readModelEnvironment(env);
    if (!modelEnv.success) throw new RuntimeError("CONFIG_INVALID", modelEnv.error);
    const { apiKey, baseURL } = modelEnv.value;
    if (apiKey) secrets.push(apiKey);
    // Another server than OpenAI's says what it serves and how big its context is, once.
    const facts = baseURL === undefined ? undefined : await probeEndpoint(baseURL, apiKey, options.log);
    const settings = resolveModelSettings({ config, environment: modelEnv.value, contextWindow, facts });
    const modelName = settings.model;
    if (settings.modelSource === "served") {
      options.log?.(`No model named (AGENTFORGE_MODEL): using ${modelName}, which ${baseURL} serves.`);
    }
    contextWindow = settings.contextWindow;
    maxOutputTokens ??= defaultReserveOutputTokens(contextWindow ?? DEFAULT_CONTEXT_WINDOW);
    const generation = { maxOutputTokens, ...(temperature === undefined ? {} : { temperature }) };
    fallbacks = settings.fallbackModels;
    const fallbacksOf = (name: string): readonly string[] =>
      name === modelName ? fallbacks : fallbacks.filter((fallback) => fallback !== name);
    // A chosen model is called like the configured one: same endpoint, key, limits, prices and fallbacks.
    const clientFor = (name: string): ModelClient =>
      createOpenAIModelClient({
        model: name,
        fallbackModels: fallbacksOf(name),
        ...(apiKey ? { apiKey } : {}),
        ...(baseURL ? { baseURL } : {}),
        timeouts: { inferenceMs: limits.inferenceTimeoutMs, httpMs: limits.httpTimeoutMs },
        prices: settings.prices,
        generation,
        ...(facts === undefined ? {} : { capabilities: capabilitiesOf(facts) }),
      });
    createModel = clientFor;
    try {
      model = clientFor(modelName);
    } catch (error) {
      throw new RuntimeError("MODEL_CONFIG_INVALID", error instanceof Error ? error.message : String(error), {
        cause: error,
      });
    }
  }
  const choice = createModelChoice({
    model,
    fallbackModels: fallbacks,
    allowedModels: [...config.allowed_models, ...(options.allowedModels ?? [])],
    ...(createModel === undefined ? {} : { createClient: createModel }),
  });
  const commandRunner = createSandboxRunner({
    env,
    mode: sandboxMode,
    allowEnv: config.sandbox.env_allowlist,
    limits: { maxOutputBytes: config.sandbox.max_output_bytes },
  });
  const dataDir = resolveDataDir(env);
  // The MCP SDK loads only when the operator config names servers: most deployments have none.
  const mcp =
    Object.keys(config.mcp_servers).length === 0
      ? null
      : (await import("../mcp/create-mcp-manager.js")).createMcpManager(config.mcp_servers, {
          reservedNames: BUILT_IN_TOOL_NAMES,
          // An MCP call carries its own timeout, so the operator's tool timeout must be handed to it.
          callTimeoutMs: limits.toolTimeoutMs,
          ...(options.log ? { log: options.log } : {}),
        });
  const started = mcp === null ? { tools: [], problems: [] } : await mcp.start();
  for (const problem of started.problems)
    options.log?.(`MCP server ${problem.server} skipped: ${problem.message}`);
  const runner = createAgentRunner({
    mcpTools: started.tools,
    subagents: { operatorSubagents: config.subagents },
    skillRoots: config.skill_roots,
    afterToolHooks: config.hooks.after_tool,
    model,
    modelFor: (name) => choice.modelFor(name),
    dataDir,
    commandRunner,
    secrets,
    ...(options.redactor ? { redactor: options.redactor } : {}),
    ...(options.confirm ? { confirm: options.confirm } : {}),
    settings: {
      limits,
      operatorAllowPrefixes: config.allowed_commands,
      contextWindow: contextWindow ?? DEFAULT_CONTEXT_WINDOW,
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
      configDigest: loaded.digest,
      ...(options.stream === undefined ? {} : { stream: options.stream }),
    },
  });
  return {
    runner,
    limits,
    config,
    configDigest: loaded.digest,
    dataDir,
    model,
    allowedModels: choice.allowedModels,
    modelFor: (name) => choice.modelFor(name),
    sandboxKind: sandboxMode,
    commandRunner,
    mcpProblems: started.problems,
    close: async () => {
      await mcp?.close();
    },
  };
}

function readSandboxModeOrThrow(env: NodeJS.ProcessEnv): "bwrap" | "none" {
  const mode = readSandboxMode(env);
  if (!mode.success) throw new RuntimeError("CONFIG_INVALID", mode.error);
  return mode.value;
}

async function probeEndpoint(
  baseURL: string,
  apiKey: string | undefined,
  log: ((message: string) => void) | undefined,
): Promise<ModelServerFacts | undefined> {
  const probed = await probeModelServer({ baseURL, ...(apiKey === undefined ? {} : { apiKey }) });
  if (probed.success) return probed.value;
  log?.(`Could not ask the model server what it serves (${probed.error}); using the configured settings.`);
  return undefined;
}

function capabilitiesOf(facts: ModelServerFacts): { contextWindow?: number; supportsTools?: boolean } {
  return {
    ...(facts.contextWindow === undefined ? {} : { contextWindow: facts.contextWindow }),
    ...(facts.supportsTools === undefined ? {} : { supportsTools: facts.supportsTools }),
  };
}
