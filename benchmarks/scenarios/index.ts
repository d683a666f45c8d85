/** Every scenario, in run order. */
import type { Scenario } from '../lib/types.js';
import { baselinesScenario } from './baselines.js';
import { catalogSizeScenario } from './catalog-size.js';
import { cliScenario } from './cli.js';
import { coldScenario } from './cold.js';
import { dispatchScenario } from './dispatch.js';
import { latencyScenario } from './latency.js';
import { parkedScenario } from './parked.js';
import { scaleScenario } from './scale.js';
import { soakScenario } from './soak.js';
import { throughputScenario } from './throughput.js';

/** All scenarios, in the order of `SCENARIO_IDS`. */
export const SCENARIOS: readonly Scenario[] = [
  dispatchScenario,
  latencyScenario,
  catalogSizeScenario,
  coldScenario,
  cliScenario,
  throughputScenario,
  baselinesScenario,
  scaleScenario,
  soakScenario,
  parkedScenario,
];
