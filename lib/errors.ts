import { createRequire } from 'node:module'
import type createErrorOf from '@fastify/error'

/**
 * @fastify/error is CommonJS, and Fastify has required it already: required rather than imported, it is
 * the module Fastify loaded, without the ES module loader's parse of its source for named exports and the
 * module it wraps it in, at every start of an app.
 */
const createError = createRequire(import.meta.url)('@fastify/error') as typeof createErrorOf

/**
 * Every error the plugin raises, keyed by its stable code. Each takes one argument: the sentence that
 * names what is wrong (route, field, value) and how to fix it. Codes are part of the public API.
 */

/** A plugin option is missing or has the wrong shape. */
export const FST_SVC_INVALID_OPTION = createError('FST_SVC_INVALID_OPTION', 'Invalid fastify-svc-manifest option: %s', 500, TypeError)

/** `about`, `channels` or `app.svc.channel()` used while the manifest layout is `1.0`. */
export const FST_SVC_LAYOUT_FIELD = createError('FST_SVC_LAYOUT_FIELD', 'Field not available in this manifest layout: %s', 500)

/** A command, event, channel or type name does not match the allowed pattern. */
export const FST_SVC_INVALID_NAME = createError('FST_SVC_INVALID_NAME', 'Invalid name: %s', 500)

/** No command name could be derived from a route URL. */
export const FST_SVC_NAME_NOT_DERIVABLE = createError('FST_SVC_NAME_NOT_DERIVABLE', 'Cannot derive a command name: %s', 500)

/** Two commands, events, channels or types share a name. */
export const FST_SVC_DUPLICATE_NAME = createError('FST_SVC_DUPLICATE_NAME', 'Duplicate name: %s', 500)

/** A command, event or channel has no description. */
export const FST_SVC_MISSING_DESCRIPTION = createError('FST_SVC_MISSING_DESCRIPTION', 'Missing description: %s', 500)

/** The `svc` route option has an unknown key or a bad value (hints, tags, auth, name). */
export const FST_SVC_INVALID_ROUTE_OPTION = createError('FST_SVC_INVALID_ROUTE_OPTION', 'Invalid svc route option: %s', 500)

/** A schema points with `$ref` at a type that is not registered. */
export const FST_SVC_UNKNOWN_REF = createError('FST_SVC_UNKNOWN_REF', 'Unknown type reference: %s', 500)

/** A schema has no single manifest type (for example `Type.Any()` or a union of several types). */
export const FST_SVC_UNMAPPABLE_SCHEMA = createError('FST_SVC_UNMAPPABLE_SCHEMA', 'Cannot map schema to a manifest type: %s', 500)

/** A route with `svc` answers more than one method (HEAD aside). */
export const FST_SVC_MULTI_METHOD = createError('FST_SVC_MULTI_METHOD', 'One command per route: %s', 500)

/** Params declared in `svc.params` and in the route schema, or one param name found in two route schemas. */
export const FST_SVC_PARAMS_DECLARED_TWICE = createError('FST_SVC_PARAMS_DECLARED_TWICE', 'Params declared twice: %s', 500)

/** `app.svc.type/event/channel` called after `ready()`. */
export const FST_SVC_AFTER_READY = createError('FST_SVC_AFTER_READY', 'The manifest is already built: %s', 500)

/** `app.svc.manifest` or `app.svc.checksum` read before `ready()`. */
export const FST_SVC_NOT_READY = createError('FST_SVC_NOT_READY', 'The manifest is not built yet: %s', 500)

/** A command requires auth but the plugin has no usable `auth` configuration. */
export const FST_SVC_AUTH_NOT_CONFIGURED = createError('FST_SVC_AUTH_NOT_CONFIGURED', 'Auth is not configured: %s', 500)

/** A request to a command with `auth: 'required'` carried no valid bearer credential. */
export const FST_SVC_UNAUTHORIZED = createError('FST_SVC_UNAUTHORIZED', '%s', 401)

/** A command carries a value the RFC 8785 checksum cannot encode: NaN, Infinity or a lone surrogate. */
export const FST_SVC_INVALID_JSON_VALUE = createError('FST_SVC_INVALID_JSON_VALUE', 'Value cannot be checksummed: %s', 500)

/** Routes the plugin never saw (registered before it, or beside it), with `unseenRoutes: 'error'`. */
export const FST_SVC_UNSEEN_ROUTES = createError('FST_SVC_UNSEEN_ROUTES', 'Routes the manifest does not describe: %s', 500)

/** An optional peer dependency that a configured feature needs is not installed. */
export const FST_SVC_MISSING_DEPENDENCY = createError('FST_SVC_MISSING_DEPENDENCY', 'Missing dependency: %s', 500)

/** `app.svc.emit()` with an event name that is not declared. */
export const FST_SVC_UNKNOWN_EVENT = createError('FST_SVC_UNKNOWN_EVENT', 'Unknown event: %s', 500)

/** `app.svc.emit()` with a payload that does not satisfy the event's data schema, or that is not JSON. */
export const FST_SVC_INVALID_EVENT_DATA = createError('FST_SVC_INVALID_EVENT_DATA', 'Invalid event data: %s', 500)

/** `app.svc.publish()` with a channel name that is not declared (a bad key is `FST_SVC_INVALID_PUBLISH`). */
export const FST_SVC_UNKNOWN_CHANNEL = createError('FST_SVC_UNKNOWN_CHANNEL', 'Unknown channel: %s', 500)

/** A subscription asks for an event that is not declared (400 on the events stream). */
export const FST_SVC_INVALID_SUBSCRIPTION = createError('FST_SVC_INVALID_SUBSCRIPTION', '%s', 400)

/** A watch names a channel that is not declared (404 on the channel stream). */
export const FST_SVC_CHANNEL_NOT_FOUND = createError('FST_SVC_CHANNEL_NOT_FOUND', '%s', 404)

/** The subscriber may not watch this channel key (403 on the channel stream). */
export const FST_SVC_FORBIDDEN = createError('FST_SVC_FORBIDDEN', '%s', 403)

/** The realtime broker (Redis) cannot be reached: at `ready()`, or when a channel stream opens (503). */
export const FST_SVC_BROKER_UNAVAILABLE = createError('FST_SVC_BROKER_UNAVAILABLE', 'Realtime broker unavailable: %s', 503)

/** `app.svc.publish()` with a key that is not a non-empty string of well-formed Unicode, or a state that is not JSON. */
export const FST_SVC_INVALID_PUBLISH = createError('FST_SVC_INVALID_PUBLISH', 'Invalid publish: %s', 500)

/** `app.svc.emit()` or `publish()` after `app.close()`; a stream asked for while the app closes (503). */
export const FST_SVC_CLOSED = createError('FST_SVC_CLOSED', 'The app is closing: %s', 503)

/** A request to an endpoint that acts came from an origin the server does not accept (403). */
export const FST_SVC_FORBIDDEN_ORIGIN = createError('FST_SVC_FORBIDDEN_ORIGIN', '%s', 403)

/** A request that arrived on a loopback address named a host the server does not answer to: DNS rebinding (403). */
export const FST_SVC_FORBIDDEN_HOST = createError('FST_SVC_FORBIDDEN_HOST', '%s', 403)

/**
 * `app.svc.emit()` or `publish()` with a payload whose stream frame is larger than `realtime.maxBufferBytes`:
 * written to a stream, it would disconnect every subscriber, reading or not. Nothing is stored or delivered.
 */
export const FST_SVC_PAYLOAD_TOO_LARGE = createError('FST_SVC_PAYLOAD_TOO_LARGE', 'Payload too large: %s', 500)

/**
 * `ready()` found several problems (of any kinds). The message lists each, one a line, with its code; the
 * error's `errors` array holds each coded error. One problem is raised as its own error instead.
 */
export const FST_SVC_INVALID_ROUTES = createError('FST_SVC_INVALID_ROUTES', '%s', 500)

/** An `svc.examples` entry whose params the route's own validation refuses (at `ready()`). */
export const FST_SVC_INVALID_EXAMPLE = createError('FST_SVC_INVALID_EXAMPLE', 'Invalid example: %s', 500)

/** The credential lacks a scope that `svc.scopes` requires (403, with an `insufficient_scope` challenge). */
export const FST_SVC_INSUFFICIENT_SCOPE = createError('FST_SVC_INSUFFICIENT_SCOPE', '%s', 403)

/** A command with `svc.paginated` whose params lack the position (`cursor` or `offset`) or `limit` (at `ready()`). */
export const FST_SVC_INVALID_PAGINATION = createError('FST_SVC_INVALID_PAGINATION', 'Invalid pagination: %s', 500)
