// What the predictor assumes before any measurement: the engine model's relative error on a GPU it has never been
// fitted to — the uncalibrated model's measured error on published GPU data (model-error.json), not a guess.
import { MODEL_ERROR } from './model-error';

/** No uncalibrated prediction is trusted to better than this, whatever the corpus says. */
const MIN_PRIOR_REL_ERROR = 0.1;

/** Relative error assumed of an uncalibrated prediction (no measurement of this framework yet): the measured rel_sd. */
export const PRIOR_REL_ERROR = Math.max(MIN_PRIOR_REL_ERROR, Number(MODEL_ERROR.rel_sd.toFixed(2)));
