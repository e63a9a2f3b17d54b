import { describe, expect, it } from "@jest/globals";
import { getEventListeners } from "node:events";
import { linkAbortSignals } from "../../../src/core/model/link-abort-signals.js";

describe("linking a call's signal to the run's", () => {
  it("forwards an abort from the run to the call", () => {
    const run = new AbortController();
    const linked = linkAbortSignals(run.signal, new AbortController());
    run.abort(new Error("stop"));
    expect(linked.signal.aborted).toBe(true);
  });

  it("leaves no listener on the run's signal after many calls", () => {
    const run = new AbortController();
    for (let index = 0; index < 50; index += 1) linkAbortSignals(run.signal, new AbortController()).unlink();
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("aborts at once when the run was already aborted", () => {
    const run = new AbortController();
    run.abort();
    expect(linkAbortSignals(run.signal, new AbortController()).signal.aborted).toBe(true);
  });
});
