import type { RunInput } from "../agent-run.js";
import type { ModelClient } from "../model/model-types.js";
import type { AgentRunnerDependencies } from "./agent-runner-dependencies.js";
import { ModelChoiceError } from "./model-choice-error.js";

/** The client a run talks to: the runner's own, or the one its task names (`modelFor` refuses what is not allowed). */
export function selectRunModel(
  task: Pick<RunInput, "model">,
  dependencies: Pick<AgentRunnerDependencies, "model" | "modelFor">,
): ModelClient {
  if (task.model === undefined || task.model === dependencies.model.model) return dependencies.model;
  if (dependencies.modelFor === undefined)
    throw new ModelChoiceError(
      "MODEL_NOT_ALLOWED",
      `\`${task.model}\` is not one of the models this installation allows: ${dependencies.model.model}.`,
      [dependencies.model.model],
    );
  return dependencies.modelFor(task.model);
}
