/**
 * The web globals programs expect, implemented in this isolate (no host access, no bridge call:
 * their CPU time and memory are the run's): `URL`, `URLSearchParams`, `TextEncoder`, `TextDecoder`,
 * `atob`, `btoa`, `structuredClone` and `DOMException`. Installed once per context by `prepare()`,
 * before the lockdown, as writable, configurable, non-enumerable properties (like built-ins). Their
 * prototype chains end in this context's intrinsics, whose `Function` constructors the lockdown
 * blocks; none of them closes over a host reference. Declared for the type-checker in
 * `sdk-templates/globals.d.ts`.
 */
import { atob, btoa, DOMException } from './base64.js';
import { ObjectDefineProperty } from './primordials.js';
import { structuredClone } from './structured-clone.js';
import { TextDecoder, TextEncoder } from './text-encoding.js';
import { URL } from './url.js';
import { URLSearchParams } from './url-search-params.js';

/** The names installed, in order. */
export const WEB_GLOBALS = [
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'atob',
  'btoa',
  'structuredClone',
  'DOMException',
] as const;

/** Defines the web globals on `globalThis`. */
export function installWebGlobals(): void {
  const values: Record<(typeof WEB_GLOBALS)[number], unknown> = {
    URL,
    URLSearchParams,
    TextEncoder,
    TextDecoder,
    atob,
    btoa,
    structuredClone,
    DOMException,
  };
  const global = globalThis as unknown as Record<string, unknown>;
  for (const name of WEB_GLOBALS) {
    ObjectDefineProperty(global, name, {
      value: values[name],
      writable: true,
      enumerable: false,
      configurable: true,
    });
  }
}
