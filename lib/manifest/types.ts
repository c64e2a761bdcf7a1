import type { Static } from '@sinclair/typebox'
import type {
  ManifestAuthSchema, ManifestChannelSchema, ManifestCommandSchema, ManifestEventSchema, ManifestExampleSchema,
  ManifestFieldSchema, ManifestHintsSchema, ManifestPaginationSchema, ManifestRateLimitSchema, ManifestSchemaV05, ManifestSchemaV1
} from './schema.js'

/*
 * The TypeScript types of the wire format, derived from its TypeBox schemas (lib/manifest/schema.ts), so a
 * field added there is a field here. Type-only imports: nothing of TypeBox is loaded at run time by them.
 * TypeBox gives the descriptors' nesting (`items`, `properties`, which refer to each other) no static type,
 * so those two keys, and the maps that hold descriptors, are spelled out here; every other key comes from
 * the schemas.
 */

/** The two manifest layouts of the spec. */
export type SvcLayout = '1.0' | '0.5.0'

type DescriptorKeywords = Omit<Static<typeof ManifestFieldSchema>, 'items' | 'properties'>

/** What a field's schema declares: `returns`, an `items`, a type's definition. */
export interface ManifestField extends DescriptorKeywords {
  /** The descriptor of an array's items. */
  items?: ManifestField
  /** The properties of an inline object, in declaration order. */
  properties?: Record<string, ManifestProperty>
}

/** A field of an object, which says whether a caller must supply it: a param, an event data field, a property. */
export interface ManifestProperty extends ManifestField {
  required: boolean
}

export type ManifestParam = ManifestProperty
export type ManifestTypeRef = ManifestField
export type ManifestExample = Static<typeof ManifestExampleSchema>
export type ManifestHints = Static<typeof ManifestHintsSchema>
/** A command's `rateLimit`: how many requests a caller may make in each window of milliseconds. */
export type ManifestRateLimit = Static<typeof ManifestRateLimitSchema>
/** A command's `paginated` as an object: the style and limits, and the result's field names that are not Surf's. */
export type ManifestPagination = Static<typeof ManifestPaginationSchema>
export type ManifestCommand = Omit<Static<typeof ManifestCommandSchema>, 'params' | 'returns'> & {
  params?: Record<string, ManifestProperty>
  returns?: ManifestField
}
export type ManifestEvent = Omit<Static<typeof ManifestEventSchema>, 'data'> & { data?: Record<string, ManifestProperty> }
export type ManifestChannel = Static<typeof ManifestChannelSchema>
/** A type's definition: `properties` for an object type, `items` for an array type. */
export type ManifestType = ManifestField
export type ManifestAuth = Static<typeof ManifestAuthSchema>

type Maps = 'commands' | 'events' | 'types'
interface ManifestMaps {
  commands: Record<string, ManifestCommand>
  events: Record<string, ManifestEvent>
  types: Record<string, ManifestType>
}

/** A manifest of layout `1.0`. */
export type ManifestV1 = Omit<Static<typeof ManifestSchemaV1>, Maps> & ManifestMaps
/** A manifest of layout `0.5.0`. */
export type ManifestV05 = Omit<Static<typeof ManifestSchemaV05>, Maps> & ManifestMaps

/** A manifest of either layout: `about` and `channels` exist only in `0.5.0`. */
export type Manifest = Omit<ManifestV05, 'svc' | 'channels'> & {
  svc: SvcLayout
  channels?: ManifestV05['channels']
}

/**
 * A manifest another server wrote, exactly as served, once a reader has checked it (docs/client.md, verifyManifest:
 * readers are liberal): only the layout version (`svc`, or Surf's `surf`), `name`, `commands` (each with its
 * `description`) and `checksum` are sure to be there; every other field the spec allows may be missing, and
 * fields the reader does not know are kept.
 */
export interface ServedManifest {
  svc?: string
  surf?: string
  name: string
  commands: Record<string, { description: string, [field: string]: unknown }>
  checksum: string
  [field: string]: unknown
}

/**
 * A manifest as readers use it (the client's `manifest`, its diff, the CLI, the MCP bridge): the served one
 * with what the spec lets a server leave out filled in as it means: `events` and `types` empty, a missing
 * `required` false, a Surf `$ref` also as the `type` it names, a Surf manifest as layout 1.0 (its `surf`
 * kept). Service fields the spec does not require may be missing; unknown fields are kept as served.
 */
export type ReadManifest = Omit<Manifest, 'description' | 'version' | 'baseUrl' | 'updatedAt'>
& Partial<Pick<Manifest, 'description' | 'version' | 'baseUrl' | 'updatedAt'>>
& { surf?: string }
