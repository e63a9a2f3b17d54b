import type { ToolResult } from "../tools/tool-result.js";
import {
  PINNED_FACTS_VERSION,
  emptyPinnedFactsData,
  pinnedFactsDataSchema,
  type PinnedFactsData,
} from "./pinned-facts-data.js";
import { renderPinnedFacts, type RenderPinnedFactsOptions } from "./render-pinned-facts.js";

/** All the context manager and compactors need of the facts: their ledger text. */
export interface PinnedFactsLedger {
  render(options?: RenderPinnedFactsOptions): string;
}

/** What the harness remembers for the model, written from tool results rather than by the model. */
export interface PinnedFacts extends PinnedFactsLedger {
  readonly goal: string;
  observeToolCall(name: string, args: unknown, result: ToolResult): void;
  setPlan(steps: readonly string[]): void;
  /** Marks plan step `index` (0-based) done; an index outside the plan is ignored and returns false. */
  completeStep(index: number): boolean;
  addArtifact(path: string): void;
  /** Goes up by one on every change: equal revisions of one object mean equal facts. */
  readonly revision: number;
  /** A deep copy of the current facts, the caller's to change. */
  snapshot(): PinnedFactsData;
  /**
   * The current facts for serialising. The same object is returned until the facts change (a turn
   * serialises them into its checkpoint and compares them with the last ones); do not modify it.
   */
  toJSON(): Readonly<PinnedFactsData>;
}

/* Storage caps keep a checkpoint bounded on very long runs; what falls off is kept as counts. */
const MAX_STORED_FILES = 500;
const MAX_STORED_COMMANDS = 50;
const MAX_STORED_FAILURES = 30;
const MAX_STORED_ARTIFACTS = 200;
const MAX_STORED_TEXT = 500;

function clipStored(text: string): string {
  return text.length <= MAX_STORED_TEXT ? text : `${text.slice(0, MAX_STORED_TEXT - 1)}…`;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Appends or moves `item` to the end (most recent last), dropping the oldest past `cap`. Returns
 * false when it was the most recent already: nothing changed.
 */
function touch(list: string[], item: string, cap: number): boolean {
  if (list.length > 0 && list[list.length - 1] === item) return false;
  const at = list.indexOf(item);
  if (at !== -1) list.splice(at, 1);
  list.push(item);
  if (list.length > cap) list.splice(0, list.length - cap);
  return true;
}

/** The one thing a call was about, for the failure ledger: a path, a command, a pattern. */
function describeTarget(args: unknown): string {
  if (isRecord(args)) {
    for (const key of ["path", "file_path", "command", "pattern", "name", "url"]) {
      const value = args[key];
      if (typeof value === "string") return clipStored(value);
    }
  }
  if (args === undefined) return "";
  const json = JSON.stringify(args) ?? "";
  return json.length > 80 ? `${json.slice(0, 79)}…` : json;
}

/** "file-write" by convention; edit and patch tools name their own kinds ("file-edit", "file-patch"). */
function isChangeKind(kind: unknown): boolean {
  return typeof kind === "string" && /^file-(write|edit|patch|create|delete|move)/.test(kind);
}

function pathsFromMetadata(metadata: Readonly<Record<string, unknown>>): string[] {
  const paths: string[] = [];
  if (typeof metadata.path === "string") paths.push(metadata.path);
  if (Array.isArray(metadata.paths)) {
    for (const path of metadata.paths) if (typeof path === "string") paths.push(path);
  }
  return paths;
}

function createFromData(data: PinnedFactsData): PinnedFacts {
  let revision = 0;
  let serialised: { readonly revision: number; readonly value: Readonly<PinnedFactsData> } | null = null;
  let rendered: {
    readonly revision: number;
    readonly options: RenderPinnedFactsOptions | undefined;
    readonly text: string;
  } | null = null;
  const changed = (): void => {
    revision += 1;
  };

  function recordCommand(command: string, exitCode: number | null, ok: boolean, timedOut: boolean): void {
    const at = data.commands.findIndex((fact) => fact.command === command);
    const previous = at === -1 ? undefined : data.commands.splice(at, 1)[0];
    data.commands.push({
      command: clipStored(command),
      runs: (previous?.runs ?? 0) + 1,
      failures: (previous?.failures ?? 0) + (ok ? 0 : 1),
      lastExitCode: exitCode,
      lastOk: ok,
      lastTimedOut: timedOut,
    });
    while (data.commands.length > MAX_STORED_COMMANDS) {
      const dropped = data.commands.shift();
      if (dropped) {
        data.olderCommands.distinct += 1;
        data.olderCommands.runs += dropped.runs;
        data.olderCommands.failures += dropped.failures;
      }
    }
  }

  function recordFailure(tool: string, errorType: string, target: string, message: string): void {
    const at = data.failures.findIndex(
      (fact) =>
        fact.tool === tool &&
        fact.errorType === errorType &&
        fact.target === target &&
        fact.message === message,
    );
    const previous = at === -1 ? undefined : data.failures.splice(at, 1)[0];
    data.failures.push({
      tool,
      errorType,
      target,
      message: clipStored(message),
      count: (previous?.count ?? 0) + 1,
    });
    while (data.failures.length > MAX_STORED_FAILURES) {
      data.olderFailures += data.failures.shift()?.count ?? 0;
    }
  }

  return {
    goal: data.goal,
    get revision() {
      return revision;
    },
    observeToolCall(name, args, result) {
      // The revision only moves when the facts do: reading the file read last changes nothing, and
      // the checkpoint, the ledger and its token count are then reused as they are.
      let didChange = false;
      const metadata = result.metadata ?? {};
      const kind = metadata.kind;
      const list = kind === "file-read" ? data.filesRead : isChangeKind(kind) ? data.filesChanged : undefined;
      if (result.ok && list) {
        for (const path of pathsFromMetadata(metadata))
          didChange = touch(list, clipStored(path), MAX_STORED_FILES) || didChange;
      }
      if (typeof metadata.command === "string") {
        const exitCode = typeof metadata.exitCode === "number" ? metadata.exitCode : null;
        const timedOut = metadata.timedOut === true;
        recordCommand(metadata.command, exitCode, result.ok && !timedOut, timedOut);
        didChange = true;
      }
      if (result.ok) {
        for (const artifact of result.artifacts)
          didChange = touch(data.artifacts, clipStored(artifact), MAX_STORED_ARTIFACTS) || didChange;
      } else {
        const errorType = result.error?.error_type ?? result.status.toUpperCase();
        const message = result.error?.message ?? result.summary;
        recordFailure(name, errorType, describeTarget(args), message);
        didChange = true;
      }
      if (didChange) changed();
    },
    setPlan(steps) {
      changed();
      const done = new Map(data.plan.map((step) => [step.step, step.done]));
      // Re-planning keeps the done marks of steps that are still in the plan, word for word.
      data.plan = steps.map((step) => ({
        step: clipStored(step),
        done: done.get(clipStored(step)) ?? false,
      }));
    },
    completeStep(index) {
      const step = data.plan[index];
      if (!step) return false;
      changed();
      step.done = true;
      return true;
    },
    addArtifact(path) {
      changed();
      touch(data.artifacts, clipStored(path), MAX_STORED_ARTIFACTS);
    },
    render(options) {
      if (rendered?.revision !== revision || rendered.options !== options) {
        rendered = { revision, options, text: renderPinnedFacts(data, options) };
      }
      return rendered.text;
    },
    snapshot() {
      return structuredClone(data);
    },
    toJSON() {
      // The facts are plain JSON by their schema: a JSON round trip copies them exactly, and
      // costs a third of structuredClone on the hot path (once a turn).
      if (serialised?.revision !== revision) {
        serialised = { revision, value: JSON.parse(JSON.stringify(data)) as PinnedFactsData };
      }
      return serialised.value;
    },
  };
}

export function createPinnedFacts(goal: string): PinnedFacts {
  return createFromData(emptyPinnedFactsData(goal));
}

/** Restores facts from a checkpoint; a file written by a newer harness is refused by name. */
export function pinnedFactsFromJSON(
  value: unknown,
):
  | { readonly success: true; readonly value: PinnedFacts }
  | { readonly success: false; readonly error: string } {
  const parsed = pinnedFactsDataSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join(".") : "(root)";
    return {
      success: false,
      error: `invalid pinned facts at ${where}: ${issue?.message ?? "unknown problem"}`,
    };
  }
  if (parsed.data.version > PINNED_FACTS_VERSION) {
    return {
      success: false,
      error: `pinned facts have schema version ${parsed.data.version}, newer than the supported ${PINNED_FACTS_VERSION}; upgrade the harness to resume this run`,
    };
  }
  return { success: true, value: createFromData(structuredClone(parsed.data)) };
}
