/**
 * `fastify-svc-manifest/schema`: the manifest of each layout as TypeBox schemas and as plain JSON Schema.
 * A separate entry, so that the plugin does not load TypeBox for an app that never validates a manifest.
 */
export { ManifestSchemaV05, ManifestSchemaV1, manifestJsonSchema, manifestSchemas } from './manifest/schema.js'
/** What reads a manifest another server wrote checks it against: see docs/client.md, verifyManifest: readers are liberal. */
export { readerManifestJsonSchema, readerManifestSchemas } from './manifest/reader-schema.js'
export type { Manifest, ManifestV05, ManifestV1, SvcLayout } from './manifest/types.js'
