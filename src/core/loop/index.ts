/** The public face of this part of the core: what the doors may import. */
export { type ExitReason, type LoopEvent, type LoopEventListener } from "./loop-events.js";
export {
  createProgressRenderer,
  DISCARDED_MARK,
  type ProgressRenderer,
  type ProgressRendererOptions,
} from "./create-progress-renderer.js";
