import type { ChatMessage } from "../../../src/core/model/model-types.js";

const WORDS = [
  "the",
  "file",
  "value",
  "test",
  "change",
  "error",
  "line",
  "code",
  "run",
  "read",
  "open",
  "list",
  "data",
  "path",
  "name",
  "type",
];

/** Text of about `tokens` o200k tokens (common words cost one each), varied by seed. */
export function filler(tokens: number, seed: string): string {
  let state = [...seed].reduce((sum, char) => (sum * 31 + char.charCodeAt(0)) >>> 0, 7);
  const words: string[] = [];
  for (let index = 0; index < tokens; index += 1) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    words.push(WORDS[(state >>> 16) % WORDS.length] ?? "the");
  }
  return words.join(" ");
}

/** A history of `turns` assistant turns, each one tool call with an output of `outputTokens`. */
export function buildToolHistory(turns: number, outputTokens: number, goal = "Do the task."): ChatMessage[] {
  const history: ChatMessage[] = [{ role: "user", content: goal }];
  for (let turn = 0; turn < turns; turn += 1) {
    const id = `call_${turn}`;
    history.push({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id,
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: `src/f${turn}.ts` }) },
        },
      ],
    });
    history.push({ role: "tool", tool_call_id: id, content: filler(outputTokens, String(turn)) });
  }
  return history;
}
