export type ModelChoiceErrorCode = "MODEL_NOT_ALLOWED";

/** A run asked for a model its runtime may not use: the message names the models it may. */
export class ModelChoiceError extends Error {
  override readonly name = "ModelChoiceError";
  constructor(
    readonly code: ModelChoiceErrorCode,
    message: string,
    readonly allowedModels: readonly string[],
  ) {
    super(message);
  }
}
