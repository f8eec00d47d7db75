// What the predictor assumes before any measurement: the engine model's relative error on a GPU it has never been fitted to.

/** Relative error assumed of an uncalibrated prediction (no measurement of this framework yet). */
export const PRIOR_REL_ERROR = 0.3;
