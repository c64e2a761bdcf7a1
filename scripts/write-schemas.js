// Writes the manifest JSON Schemas of every layout from the built package to docs/schema/ (or to the
// directory given as first argument). Run with `npm run schema:build`.
import { mkdir, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { manifestJsonSchema, manifestSchemas, readerManifestJsonSchema, readerManifestSchemas } from '../dist/schema.js'

const DEFAULT_DIR = fileURLToPath(new URL('../docs/schema/', import.meta.url))

/** The directory both scripts work on: the first argument, else docs/schema/. */
export function schemaDir () {
  return resolve(process.argv[2] ?? DEFAULT_DIR)
}

/**
 * Every schema file: its name and its exact text. `manifest-<layout>.json` is what the plugin serves;
 * `manifest-<layout>.reader.json` what a reader takes from another server (Surf's manifest included).
 */
export function schemaFiles () {
  const file = (name, schema) => ({ name, text: `${JSON.stringify(schema, null, 2)}\n` })
  return [
    ...Object.keys(manifestSchemas).map((layout) => file(`manifest-${layout}.json`, manifestJsonSchema(layout))),
    ...Object.keys(readerManifestSchemas).map((layout) => file(`manifest-${layout}.reader.json`, readerManifestJsonSchema(layout)))
  ]
}

async function writeSchemas (dir) {
  await mkdir(dir, { recursive: true })
  for (const { name, text } of schemaFiles()) {
    await writeFile(join(dir, name), text)
    process.stdout.write(`wrote ${relative(process.cwd(), join(dir, name))}\n`)
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await writeSchemas(schemaDir())
