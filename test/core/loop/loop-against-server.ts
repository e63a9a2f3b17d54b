import { afterEach } from "@jest/globals";
import { z } from "zod";
import {
  createContextManager,
  createPinnedFacts,
  createTokenCounter,
} from "../../../src/core/context/index.js";
import type { LoopEvent } from "../../../src/core/loop/loop-events.js";
import { runLoop, type RunLoopOptions } from "../../../src/core/loop/run-loop.js";
import type { OpenAIModelClientOptions } from "../../../src/core/model/create-openai-model-client.js";
import { createOpenAIModelClient } from "../../../src/core/model/create-openai-model-client.js";
import { createToolRegistry } from "../../../src/core/tools/create-tool-registry.js";
import { defineTool } from "../../../src/core/tools/tool.js";
import { okResult } from "../../../src/core/tools/tool-result.js";
import type { MockServerProfile } from "../../../src/mock-model/mock-server-profile.js";
import type { MockScript } from "../../../src/mock-model/mock-script.js";
import type { MockModelServer } from "../../../src/mock-model/start-mock-model-server.js";
import { startMockModelServer } from "../../../src/mock-model/start-mock-model-server.js";
import { allowAll, plainSafety } from "../../support/plain-safety.js";

export interface LoopAgainstServer {
  readonly server: MockModelServer;
  readonly events: LoopEvent[];
  /** Paths the `look` tool was really run on. */
  readonly looked: string[];
  run(overrides?: Partial<RunLoopOptions>): ReturnType<typeof runLoop>;
}

export interface LoopSetup {
  readonly profile?: MockServerProfile;
  readonly client?: Partial<OpenAIModelClientOptions>;
  /** Gives the loop a context manager with this window (none by default). */
  readonly windowTokens?: number;
  /** Characters the `look` tool returns (default: a short line). */
  readonly outputChars?: number;
}

/** The loop with the real openai SDK client against the mock server, closed after each test. */
export function useLoopAgainstServer(): (
  script: MockScript,
  setup?: LoopSetup,
) => Promise<LoopAgainstServer> {
  const servers: MockModelServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (script, setup = {}) => {
    const server = await startMockModelServer({
      script,
      ...(setup.profile ? { profile: setup.profile } : {}),
    });
    servers.push(server);
    const looked: string[] = [];
    const look = defineTool({
      name: "look",
      description: "Look at a path.",
      kind: "read",
      inputSchema: z.object({ at: z.string() }),
      execute: async (input) => {
        looked.push(input.at);
        const output =
          setup.outputChars === undefined
            ? `saw ${input.at}`
            : `${input.at}: ${"lorem ipsum dolor sit amet ".repeat(Math.ceil(setup.outputChars / 27))}`;
        return okResult(output, { summary: "looked" });
      },
    });
    const registry = createToolRegistry({
      tools: [look],
      approvalGate: allowAll,
      safety: plainSafety,
      isAllowed: () => true,
    });
    const model = createOpenAIModelClient({
      model: "local-model",
      baseURL: server.url,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      ...setup.client,
    });
    const events: LoopEvent[] = [];
    const counter = createTokenCounter(model.model);
    const context =
      setup.windowTokens === undefined
        ? undefined
        : createContextManager({ windowTokens: setup.windowTokens, counter, protectRecentObservations: 1 });
    return {
      server,
      events,
      looked,
      run: (overrides = {}) =>
        runLoop({
          model,
          registry,
          toolContext: {
            workspaceRoot: "/tmp",
            scratchDir: "/tmp",
            signal: new AbortController().signal,
            runId: "r",
          },
          systemPrompt: "You look at things.",
          history: [{ role: "user", content: "look around" }],
          budgets: { maxTurns: 10 },
          onEvent: (event) => events.push(event),
          ...(context ? { context, facts: createPinnedFacts("look around") } : {}),
          ...overrides,
        }),
    };
  };
}

export function chatBodies(server: MockModelServer) {
  return server.requests.flatMap((request) => (request.body === undefined ? [] : [request.body]));
}

export function eventsOf<Type extends LoopEvent["type"]>(
  events: readonly LoopEvent[],
  type: Type,
): Extract<LoopEvent, { type: Type }>[] {
  return events.filter((event): event is Extract<LoopEvent, { type: Type }> => event.type === type);
}
