import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { RunInput, RunResult } from "../../../src/core/agent-run.js";
import type { LoopEvent } from "../../../src/core/loop/index.js";
import { createRuntime, type Runtime } from "../../../src/core/runtime/create-runtime.js";
import type { MockStep } from "../../../src/mock-model/mock-script.js";
import {
  startMockModelServer,
  type RecordedRequest,
} from "../../../src/mock-model/start-mock-model-server.js";

export interface OperatorRun {
  readonly result: RunResult;
  readonly events: readonly LoopEvent[];
  /** Every chat request the model endpoint saw, in order. */
  readonly requests: readonly RecordedRequest[];
  /** What `inspect` found in the workspace after the run. */
  readonly inspected: unknown;
  readonly mcpProblems: Runtime["mcpProblems"];
}

export interface OperatorRunOptions {
  /** The operator config, as its file would hold it (written as JSON, which is YAML). */
  readonly config: Record<string, unknown>;
  readonly steps: readonly MockStep[];
  readonly env?: Readonly<Record<string, string>>;
  readonly input?: Partial<Omit<RunInput, "workspaceRoot">>;
  /** Files to put in the workspace before the run, by relative path. */
  readonly files?: Readonly<Record<string, string>>;
  /** Looks at the workspace after the run, before it is removed. */
  readonly inspect?: (workspace: string) => unknown;
}

/**
 * One run through the same path every door takes: an operator config file read by createRuntime,
 * the real OpenAI client against the scripted model server, the real sandbox and tools.
 */
export async function runWithOperatorConfig(options: OperatorRunOptions): Promise<OperatorRun> {
  const directory = await realpath(await mkdtemp(path.join(os.tmpdir(), "agentforge-operator-key-")));
  const workspace = path.join(directory, "workspace");
  const model = await startMockModelServer({ script: { steps: [...options.steps] } });
  let runtime: Runtime | undefined;
  try {
    await mkdir(workspace);
    for (const [relative, text] of Object.entries(options.files ?? {})) {
      await mkdir(path.dirname(path.join(workspace, relative)), { recursive: true });
      await writeFile(path.join(workspace, relative), text, "utf8");
    }
    const configPath = path.join(directory, "operator.yml");
    await writeFile(configPath, JSON.stringify(options.config), "utf8");
    runtime = await createRuntime({
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: directory,
        AGENTFORGE_CONFIG: configPath,
        AGENTFORGE_DATA_DIR: path.join(directory, "data"),
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: "sk-operator-keys-not-a-real-key-0000",
        AGENTFORGE_MODEL: "primary-model",
        ...options.env,
      },
      stream: false,
    });
    const events: LoopEvent[] = [];
    const result = await runtime.runner.run(
      {
        prompt: "do the task",
        mode: "build",
        approvalMode: "never",
        allowPrefixes: [],
        ...options.input,
        workspaceRoot: workspace,
      },
      { onEvent: (event) => events.push(event) },
    );
    return {
      result,
      events,
      requests: model.requests.filter((request) => request.body !== undefined),
      inspected: await options.inspect?.(workspace),
      mcpProblems: runtime.mcpProblems,
    };
  } finally {
    await runtime?.close();
    const commandRunner = runtime?.commandRunner as { close?: () => void } | undefined;
    commandRunner?.close?.();
    await model.close();
    await rm(directory, { recursive: true, force: true });
  }
}

/** The tool messages the model was sent in its last request. */
export function toolMessagesSeen(run: OperatorRun): string[] {
  const last = run.requests.at(-1)?.body;
  return (last?.messages ?? [])
    .filter((message) => message.role === "tool")
    .map((message) =>
      typeof message.content === "string" ? message.content : JSON.stringify(message.content),
    );
}

/** The tool names offered in the first request. */
export function toolsOffered(run: OperatorRun): string[] {
  const tools = (run.requests[0]?.body?.tools ?? []) as { function: { name: string } }[];
  return tools.map((tool) => tool.function.name).sort();
}
