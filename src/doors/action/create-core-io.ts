import * as core from "@actions/core";
import type { ActionIo } from "./action-io.js";

/** The runner's side of ActionIo: workflow commands and the files GITHUB_OUTPUT and GITHUB_STEP_SUMMARY. */
export function createCoreIo(): ActionIo {
  return {
    info: (message) => core.info(message),
    warning: (message) => core.warning(message),
    error: (message) => core.error(message),
    setOutput: (name, value) => core.setOutput(name, value),
    setSecret: (value) => core.setSecret(value),
    appendSummary: async (markdown) => {
      // Without GITHUB_STEP_SUMMARY (a local run) there is nowhere to write; say so and go on.
      if (!process.env["GITHUB_STEP_SUMMARY"]) {
        core.info("GITHUB_STEP_SUMMARY is not set; the job summary is not written.");
        return;
      }
      await core.summary.addRaw(markdown, true).write();
    },
  };
}
