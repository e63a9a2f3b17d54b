import type { ChatRequestBody } from "./chat-request-body.js";
import type { MockScript, MockStep } from "./mock-script.js";

/** Picks the step that answers a request; undefined when the script has none for it. */
export interface StepPicker {
  take(body: ChatRequestBody): { readonly step: MockStep; readonly index: number } | undefined;
}

/**
 * Answers each conversation by its own turn: the step for a request is the one at the index of
 * the number of assistant messages it already holds, and steps are never used up. Many runs at
 * once (each a separate conversation) then each follow the whole script, whatever the order their
 * requests arrive in; the shared line of `createStepQueue` would hand one run's step to another.
 */
export function createTurnStepPicker(script: MockScript): StepPicker {
  return {
    take(body) {
      const index = body.messages.filter((message) => message.role === "assistant").length;
      const step = script.steps[index];
      return step === undefined ? undefined : { step, index };
    },
  };
}
