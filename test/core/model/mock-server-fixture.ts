import { afterEach } from "@jest/globals";
import type { OpenAIModelClientOptions } from "../../../src/core/model/create-openai-model-client.js";
import { createOpenAIModelClient } from "../../../src/core/model/create-openai-model-client.js";
import type { ModelClient } from "../../../src/core/model/model-types.js";
import type { MockScript } from "../../../src/mock-model/mock-script.js";
import type { MockModelServer } from "../../../src/mock-model/start-mock-model-server.js";
import { startMockModelServer } from "../../../src/mock-model/start-mock-model-server.js";

/** Starts real mock servers for a test file and closes them after each test. */
export function useMockServers(): {
  start(script: MockScript): Promise<MockModelServer>;
  client(
    server: MockModelServer,
    options: Partial<OpenAIModelClientOptions> & { model?: string },
  ): {
    client: ModelClient;
    sleeps: number[];
  };
} {
  const servers: MockModelServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return {
    async start(script) {
      const server = await startMockModelServer({ script });
      servers.push(server);
      return server;
    },
    client(server, options) {
      const sleeps: number[] = [];
      const client = createOpenAIModelClient({
        model: "gpt-4.1-mini",
        apiKey: "test-key",
        baseURL: server.url,
        retry: { baseDelayMs: 1, maxDelayMs: 5_000 },
        sleep: async (ms) => {
          sleeps.push(ms);
        },
        ...options,
      });
      return { client, sleeps };
    },
  };
}

export const userAsks = (content: string) => ({
  messages: [{ role: "user" as const, content }],
  tools: [
    {
      type: "function" as const,
      function: {
        name: "read_file",
        description: "Read a file",
        parameters: { type: "object", properties: { path: { type: "string" } } },
      },
    },
  ],
});

export function chatRequestsFor(server: MockModelServer, model: string) {
  return server.requests.filter((request) => request.model === model);
}
