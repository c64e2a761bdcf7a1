/**
 * `fastify-svc-manifest/client`: read, verify and compare service manifests from any Node program.
 * Uses Node's own `fetch` (no HTTP library), and `eventsource-parser` for event and channel streams.
 */
export { createManifestClient } from './client.js'
export type { GetOptions, ManifestClient, ManifestClientOptions, ManifestResult, ManifestStatus } from './client.js'
export { CommandError } from './invoke.js'
export type { CommandErrorBody, ExecuteOptions, InvokeOptions, PipelineOptions, PipelineResult, PipelineStep, PipelineStepResult, Progress, StreamCallOptions } from './invoke.js'
export type { ChannelState, StreamOptions, SubscribeOptions, SvcEvent } from './streams.js'
export type { PaginateOptions } from './paginate.js'
export { diffManifests } from './diff.js'
export type { Change, ChangeKind, ManifestDiff } from './changes.js'
export { ManifestClientError } from './errors.js'
export type { ManifestClientErrorCode, ManifestClientErrorDetails } from './errors.js'
export { verifyManifest } from './verify.js'
export type { VerifyOptions, VerifyResult } from './verify.js'
export { checksumOf } from './checksum.js'
export type { Manifest, ManifestExample, ManifestField, ManifestProperty, ReadManifest, ServedManifest } from '../manifest/types.js'
