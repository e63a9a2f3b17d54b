import type { ModelClient } from "../../../core/model/index.js";
import type { GitHubJob, JobAgent } from "./github-job.js";

export type ModelChoiceCheck =
  | { readonly success: true }
  | {
      readonly success: false;
      readonly error: { readonly model: string; readonly allowed: readonly string[] };
    };

/** The models a job's agent may use: the door's list, or its one model. */
export function allowedModelsOf(agent: Pick<JobAgent, "allowedModels" | "model">): readonly string[] {
  return agent.allowedModels ?? (agent.model === undefined ? [] : [agent.model.model]);
}

/** Whether the model a person chose, if any, is one the operator allows. */
export function checkModelChoice(
  job: Pick<GitHubJob, "model">,
  agent: Pick<JobAgent, "allowedModels" | "model">,
): ModelChoiceCheck {
  if (job.model === undefined) return { success: true };
  const allowed = allowedModelsOf(agent);
  if (allowed.includes(job.model)) return { success: true };
  return { success: false, error: { model: job.model, allowed } };
}

/** The client of a job's model: the chosen one, or the agent's own. Undefined when there is none. */
export function jobModelClient(
  job: Pick<GitHubJob, "model">,
  agent: Pick<JobAgent, "model" | "modelFor">,
): ModelClient | undefined {
  if (job.model === undefined || job.model === agent.model?.model) return agent.model;
  return agent.modelFor?.(job.model);
}

/** The part of a run's input that asks for the job's model. */
export function jobRunModel(job: Pick<GitHubJob, "model">): { model?: string } {
  return job.model === undefined ? {} : { model: job.model };
}
