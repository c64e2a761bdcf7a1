import type { Static } from '@sinclair/typebox'
import type {
  ManifestAuthSchema, ManifestChannelSchema, ManifestCommandSchema, ManifestEventSchema, ManifestHintsSchema,
  ManifestParamSchema, ManifestSchemaV05, ManifestSchemaV1, ManifestTypeRefSchema, ManifestTypeSchema
} from './schema.js'

/*
 * The TypeScript types of the wire format, derived from its TypeBox schemas (lib/manifest/schema.ts), so a
 * field added there is a field here. Type-only imports: nothing of TypeBox is loaded at run time by them.
 */

/** The two manifest layouts of the spec. */
export type SvcLayout = '1.0' | '0.5.0'

export type ManifestParam = Static<typeof ManifestParamSchema>
export type ManifestTypeRef = Static<typeof ManifestTypeRefSchema>
export type ManifestHints = Static<typeof ManifestHintsSchema>
export type ManifestCommand = Static<typeof ManifestCommandSchema>
export type ManifestEvent = Static<typeof ManifestEventSchema>
export type ManifestChannel = Static<typeof ManifestChannelSchema>
export type ManifestType = Static<typeof ManifestTypeSchema>
export type ManifestAuth = Static<typeof ManifestAuthSchema>

/** A manifest of layout `1.0`. */
export type ManifestV1 = Static<typeof ManifestSchemaV1>
/** A manifest of layout `0.5.0`. */
export type ManifestV05 = Static<typeof ManifestSchemaV05>

/** A manifest of either layout: `about` and `channels` exist only in `0.5.0`. */
export type Manifest = Omit<ManifestV05, 'svc' | 'channels'> & {
  svc: SvcLayout
  channels?: ManifestV05['channels']
}
