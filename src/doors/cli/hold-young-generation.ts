import v8 from "node:v8";

/** V8's default for `--semi-space-growth-factor` (Node 20's V8 11.3; `node --v8-options`). */
const DEFAULT_GROWTH_FACTOR = 2;
const FLAG = "--semi-space-growth-factor";

/**
 * Keeps V8's young generation at its first size while a server starts, and gives it back its
 * usual growth when `release` is called (once the server listens).
 *
 * Loading a server's modules is one burst of long-lived allocations: each scavenge finds most of
 * its objects alive, so V8 doubles the young generation up to its 16 MiB per semi-space, and both
 * semi-spaces stay committed (32 MiB of RSS) while the idle server allocates almost nothing. With
 * the growth factor at 1 during start-up the objects are promoted from a 1 MiB semi-space instead;
 * after `release`, load grows the young generation as it always did. The factor is read by V8 each
 * time it sizes the new space, so setting it at run time takes effect (the test checks that this
 * Node still honours it). An operator who passed the flag to node keeps theirs.
 */
export function holdYoungGeneration(execArgv: readonly string[] = process.execArgv): () => void {
  if (
    execArgv.some(
      (argument) => argument.startsWith(FLAG) || argument.startsWith("--semi_space_growth_factor"),
    )
  )
    return () => {};
  v8.setFlagsFromString(`${FLAG}=1`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    v8.setFlagsFromString(`${FLAG}=${DEFAULT_GROWTH_FACTOR}`);
  };
}
