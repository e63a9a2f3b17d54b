import type { Verdict } from "./command-classification.js";
import type { BashNode } from "./load-bash-parser.js";

/**
 * A function definition is never approved on its own: a function can take the name of any
 * command (`ls() { rm -rf x; }`). Its body is judged separately as if it ran. A function that
 * calls itself in a pipeline or in the background is a fork bomb (`:(){ :|:& };:`).
 */
export function judgeFunctionDefinition(node: BashNode): Verdict {
  const name = node.childForFieldName("name")?.text ?? "";
  const body = node.childForFieldName("body");
  const callsItself =
    body !== null && body.descendantsOfType("command_name").some((commandName) => commandName.text === name);
  const spawns = body !== null && (body.descendantsOfType("pipeline").length > 0 || /&(?!&)/.test(body.text));
  if (callsItself && spawns) {
    return {
      classification: "dangerous",
      reason: `defines \`${name}\`, a function that starts copies of itself without end (a fork bomb)`,
    };
  }
  return {
    classification: "not_allowlisted",
    reason: `defines the shell function \`${name}\`; a function can stand in for any command, so definitions are not approved automatically`,
  };
}
