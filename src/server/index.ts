/**
 * The HTTP service: a Hono app over a runtime (`createHttpApp`) and a Node server with graceful
 * shutdown (`startHttpServer`). See docs/http.md.
 */
export { createHttpApp } from './app.js';
export type { HttpApp, HttpAppOptions } from './app.js';
export { startHttpServer } from './serve.js';
export type { HttpServer, HttpServerOptions } from './serve.js';
export { httpOptionsFromConfig } from './config.js';
export type { ApiKey } from './auth.js';
export { isLoopbackAddress, isLoopbackHost, isLoopbackOrigin } from './auth.js';
export { HTTP_STATUS, httpStatus } from './status.js';
export type { HttpErrorBody, HttpEnv } from './respond.js';
