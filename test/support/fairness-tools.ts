/** The fairness suite's tools as a tools module, for `isocode serve` (test/server/fairness.test.ts). */
export { FAIRNESS_TOOLS as tools } from './hostile-classes.js';
