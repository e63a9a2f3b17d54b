import { writeFile } from "node:fs/promises";
import { readTraceFile } from "../../core/trace/index.js";
import { renderTraceStory } from "../../core/trace/index.js";
import { EXIT_CODES, type CliIo } from "./cli-io.js";

/** `agentforge trace FILE [--html OUT] [--json]`: replays a recorded run; calls no model and no tool. */
export async function traceCommand(
  file: string,
  options: { html?: string; json?: boolean },
  io: CliIo,
): Promise<number> {
  const parsed = await readTraceFile(file);
  if (!parsed.success) {
    io.stderr(`agentforge trace: ${parsed.error}\n`);
    return EXIT_CODES.usage;
  }
  if (options.html) {
    const { renderTraceHtml } = await import("../../core/trace/index.js");
    await writeFile(options.html, renderTraceHtml(parsed.value), { mode: 0o644 });
    io.stderr(`Wrote ${options.html}\n`);
  }
  if (options.json) io.stdout(`${JSON.stringify(parsed.value, null, 2)}\n`);
  else io.stdout(`${renderTraceStory(parsed.value)}\n`);
  return EXIT_CODES.ok;
}
