import type { Verdict } from "./command-classification.js";
import { classifyPath } from "./classify-path.js";
import type { CommandLocation } from "./command-location.js";
import type { ShellWord } from "./shell-word.js";

/** What a command does to its targets; creating is not destructive, so only it may stay unknown. */
export type WriteKind = "deletes" | "overwrites" | "creates";

/** A target outside the workspace is dangerous; one that cannot be placed makes `auto` ask. */
export function judgeTargets(
  name: string,
  kind: WriteKind,
  targets: readonly ShellWord[],
  location: CommandLocation,
): Verdict | undefined {
  let unknown: Verdict | undefined;
  for (const target of targets) {
    const place = classifyPath(target, location);
    if (place.kind === "outside") {
      return {
        classification: "dangerous",
        reason: `${kind} \`${target.source}\`, which is outside the workspace`,
      };
    }
    if (place.kind === "unknown" && kind !== "creates") {
      unknown ??= {
        classification: "unparseable",
        reason: `${kind} \`${target.source}\`: ${place.reason}, so it may be outside the workspace`,
      };
    }
  }
  return unknown;
}

export function unknownTargets(name: string, kind: WriteKind, why: string): Verdict {
  return {
    classification: "unparseable",
    reason: `${kind} files the policy cannot locate (\`${name}\`: ${why}), so they may be outside the workspace`,
  };
}
