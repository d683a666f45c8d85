import { renderSdk } from '../../../src/sdk/index.js';

/** The SDK of an empty catalog: the prelude plus an empty `Tools`; a base for declaration-only checks. */
export const PRELUDE = renderSdk([]).text;
