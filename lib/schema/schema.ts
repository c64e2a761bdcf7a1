import { isPlainObject } from '../util/objects.js'

/** A JSON Schema read as plain data. Nothing here ever writes to it. */
export type Schema = Readonly<Record<string, unknown>>

/** The registered types, by name, by the `$id` each schema carries, and by the schema object itself. */
export interface TypeNames {
  has (name: string): boolean
  nameOfId (id: string): string | undefined
  /** The name under which this very object was registered as a type, if it was. */
  nameOfSchema (schema: object): string | undefined
  /** The `$ref`s inside a registered type's schema. */
  refsOf (name: string): readonly string[]
}

/** The registered type a `$ref` points at: by name, or by the `$id` its schema carries (`'Product#'` too). */
export function refName (ref: string, types: Pick<TypeNames, 'has' | 'nameOfId'>): string | undefined {
  const target = ref.replace(/#$/, '')
  return types.has(target) ? target : types.nameOfId(target)
}

/** The properties of an object schema, or undefined when the schema is not an object with properties. */
export function propertiesOf (schema: Schema): Record<string, unknown> | undefined {
  const properties = schema.properties
  return isPlainObject(properties) ? properties : undefined
}

/** An object schema that lists its properties, as params must be. */
export function isObjectWithProperties (schema: Schema): boolean {
  return propertiesOf(schema) !== undefined && (schema.type === undefined || schema.type === 'object')
}

/** An object schema, with or without properties, as event data must be. */
export function isObjectSchema (schema: Schema): boolean {
  return schema.type === 'object' || isObjectWithProperties(schema)
}
