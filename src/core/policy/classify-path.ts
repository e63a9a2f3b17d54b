import path from "node:path";
import { isLexicallyInside, type CommandLocation } from "./command-location.js";
import type { ShellWord } from "./shell-word.js";

/**
 * Where a path a command writes lands. `scratch` is the sandbox's private /tmp (also /var/tmp
 * and /dev/shm), `device` a stream such as /dev/null (or `/dev/fd/N`, `/dev/stdout`,
 * `/dev/stderr` in a command line that opens no file onto a descriptor); the home folder is `outside`, like any
 * other place that is not the workspace. Paths are resolved by their text, not by following
 * symlinks: a link inside the workspace that points out is contained by the sandbox, which
 * mounts only the workspace writable.
 */
export type PathPlace =
  | { readonly kind: "workspace" }
  | { readonly kind: "scratch" }
  | { readonly kind: "device" }
  | { readonly kind: "outside"; readonly path: string }
  | { readonly kind: "unknown"; readonly reason: string };

const SCRATCH_FOLDERS = ["/tmp", "/var/tmp", "/dev/shm"];
const STREAM_DEVICES = /^\/dev\/(null|zero|full|tty)$/;
/** Links to an open descriptor: a write opens whatever file the descriptor holds again, for writing. */
const DESCRIPTOR_LINKS = /^\/dev\/(stdout|stderr|fd\/[0-9]+)$/;
/** `$HOME`, `${HOME}` and `"$HOME"` at the start of a word. */
const HOME_VARIABLE = /^"?\$(\{HOME\}|HOME(?![A-Za-z0-9_]))"?(\/|$)/;

export function classifyPath(word: ShellWord, location: CommandLocation): PathPlace {
  if (word.underPaths !== undefined) {
    return combineAll(word.underPaths.map((root) => classifyPath(root, location)));
  }
  if (HOME_VARIABLE.test(word.source)) {
    return { kind: "outside", path: word.source };
  }
  if (word.hasTilde) {
    return { kind: "outside", path: word.source };
  }
  if (!word.isLiteral && word.globPattern === undefined) {
    return { kind: "unknown", reason: `\`${word.source}\` is computed at run time` };
  }
  const text = word.globPattern ?? word.value;
  if (word.globPattern !== undefined && /(^|\/)\.[^/]*[*?[]/.test(text)) {
    // A pattern starting with a dot may match `..` in shells other than bash 5.2.
    return { kind: "unknown", reason: `\`${word.source}\` may match \`..\`` };
  }
  if (path.isAbsolute(text)) {
    return placeOf(path.normalize(text), location, word.source);
  }
  if (location.cwd.kind === "unknown") {
    return {
      kind: "unknown",
      reason: `\`${word.source}\` is relative to a folder that is not known (${location.cwd.reason})`,
    };
  }
  return combineAlternatives(
    location.cwd.paths.map((folder) => placeOf(path.resolve(folder, text), location, word.source)),
  );
}

function placeOf(absolute: string, location: CommandLocation, source: string): PathPlace {
  if (isLexicallyInside(location.workspaceRoot, absolute)) {
    return { kind: "workspace" };
  }
  if (STREAM_DEVICES.test(absolute)) {
    return { kind: "device" };
  }
  if (DESCRIPTOR_LINKS.test(absolute)) {
    // The sandbox's own descriptors are /dev/null and pipes; only the command line can put a file there.
    return location.openedFile === undefined
      ? { kind: "device" }
      : {
          kind: "unknown",
          reason: `\`${source}\` opens again, for writing, whatever its descriptor holds, and \`${location.openedFile}\` opens a file onto a descriptor`,
        };
  }
  if (SCRATCH_FOLDERS.some((folder) => absolute !== folder && isLexicallyInside(folder, absolute))) {
    return { kind: "scratch" };
  }
  return { kind: "outside", path: source };
}

/** Places that are all written (the starting points of `find -delete`): any one outside counts. */
function combineAll(places: readonly PathPlace[]): PathPlace {
  return (
    places.find((place) => place.kind === "outside") ??
    places.find((place) => place.kind === "unknown") ?? { kind: "workspace" }
  );
}

/** Places one of which is written, depending on an earlier `cd`: outside only if all are. */
function combineAlternatives(places: readonly PathPlace[]): PathPlace {
  const unknown = places.find((place) => place.kind === "unknown");
  if (unknown !== undefined) {
    return unknown;
  }
  const outside = places.filter((place) => place.kind === "outside");
  if (outside.length === 0) {
    return places.find((place) => place.kind !== "workspace") ?? { kind: "workspace" };
  }
  return outside.length === places.length
    ? (outside[0] as PathPlace)
    : { kind: "unknown", reason: "it lands inside the workspace or outside it depending on an earlier `cd`" };
}
