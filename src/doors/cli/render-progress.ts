/** The terminal's progress lines are the core's renderer, which the Action's step log shares. */
export {
  createProgressRenderer,
  DISCARDED_MARK,
  type ProgressRenderer,
  type ProgressRendererOptions,
} from "../../core/loop/index.js";
