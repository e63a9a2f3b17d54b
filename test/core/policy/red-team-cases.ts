import { cases } from "./construct-cases.js";

/**
 * A line that is only a backslash-newline: bash ends the command at the newline before it and
 * joins the next line to nothing, while the parser reads the next line as more words of the
 * command before (`ls⏎\\⏎rm x` is one `ls` with three arguments to the parser).
 */
export const CONTINUATION_CASES = cases("unparseable", [
  ["ls\n\\\nrm -rf x", "goes on after a newline", "ends the command in bash"],
  ["cat f\n\\\ntouch M", "goes on after a newline"],
  ["declare x\n\\\nrm x", "goes on after a newline"],
  ["x=1\n\\\nrm x", "goes on after a newline"],
  ["unset x\n\\\nrm x", "goes on after a newline"],
  ["cat <<< x\n\\\nrm x", "goes on after a newline"],
  ["ls 2>/dev/null\n\\\nrm x", "goes on after a newline"],
  ["{ ls; } 2>/dev/null\n\\\nrm x", "goes on after a newline"],
]);

/**
 * `/dev/fd/N`, `/dev/stdout` and `/dev/stderr` are links to an open descriptor: a write opens
 * again, for writing, the file a redirection put there (`<f`, `3<f`, `2<f` on a group).
 */
export const DESCRIPTOR_LINK_CASES = cases("unparseable", [
  ["cat g <f >/dev/fd/0", "opens again, for writing", "`<f` opens a file onto a descriptor"],
  ["cat g 3<f >>/dev/fd/3", "opens again, for writing"],
  ["cat g 1<f >/dev/stdout", "opens again, for writing"],
  ["{ cat g >/dev/stderr; } 2<f", "opens again, for writing"],
  ["while read -r l; do echo x >/dev/fd/0; done <f", "opens again, for writing"],
  ["bash -c 'cat g >/dev/fd/3' 3<f", "opens again, for writing"],
]);

/** The read-only judgement holds in the sandbox's environment, which pins git's safe settings. */
export const ENVIRONMENT_REMOVAL_CASES = cases("not_allowlisted", [
  ["env -i git status", "removes variables from the sandbox's environment"],
  ["env - git log", "removes variables from the sandbox's environment"],
  ["env -u GIT_CONFIG_COUNT git status", "removes variables"],
  ["env --unset=GIT_CONFIG_KEY_0 git diff", "removes variables"],
  ["timeout 5 env -i git status", "removes variables"],
]);

/** Near misses of the cases above that stay approved. */
export const NEAR_MISS_CASES = cases("safe", [
  ["ls |\n\\\ncat", "read-only"],
  ["cat f >/dev/stderr", "is read-only"],
  ["ls 2>/dev/fd/1", "is read-only"],
  ["grep x <f 2>/dev/null", "is read-only"],
  ["env -C . git status", "is read-only"],
]);
