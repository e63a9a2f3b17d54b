import { readFile } from "node:fs/promises";
import { mockScriptFromTrace } from "../../mock-model/mock-script-from-trace.js";
import { parseMockScript } from "../../mock-model/mock-script.js";
import { startMockModelServer } from "../../mock-model/start-mock-model-server.js";
import { EXIT_CODES, type CliIo } from "./cli-io.js";

/** `agentforge mock-model`: an OpenAI-compatible server answering from a script or a trace. */
export async function mockModelCommand(
  options: { script?: string; trace?: string; port: number; host: string },
  io: CliIo,
): Promise<number> {
  if (Boolean(options.script) === Boolean(options.trace)) {
    io.stderr("agentforge mock-model: give exactly one of --script FILE or --trace FILE\n");
    return EXIT_CODES.usage;
  }
  const file = (options.script ?? options.trace)!;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    io.stderr(`agentforge mock-model: cannot read ${file}\n`);
    return EXIT_CODES.usage;
  }
  const script = options.script ? parseMockScript(text) : mockScriptFromTrace(text);
  if (!script.success) {
    io.stderr(`agentforge mock-model: ${file}: ${script.error}\n`);
    return EXIT_CODES.usage;
  }
  const server = await startMockModelServer({ script: script.value, port: options.port, host: options.host });
  io.stdout(`${server.url}\n`);
  io.stderr(`mock model listening at ${server.url} — set OPENAI_BASE_URL=${server.url}; Ctrl-C to stop\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await server.close();
  return EXIT_CODES.ok;
}
