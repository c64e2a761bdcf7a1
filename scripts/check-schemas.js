// Fails (exit 1) when docs/schema/ (or the directory given as first argument) does not hold exactly the
// schemas of the built package. Run after `npm run build`; fix with `npm run schema:build`.
import { readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { schemaDir, schemaFiles } from './write-schemas.js'

const dir = schemaDir()
const stale = []
for (const { name, text } of schemaFiles()) {
  const path = relative(process.cwd(), join(dir, name))
  const committed = await readFile(join(dir, name), 'utf8').catch(() => undefined)
  if (committed === undefined) stale.push(`${path} is missing`)
  else if (committed !== text) stale.push(`${path} is out of date`)
}

if (stale.length > 0) {
  process.stderr.write(`${stale.join('\n')}\nThe manifest JSON Schemas are stale: run \`npm run schema:build\` and commit the files.\n`)
  process.exitCode = 1
} else {
  process.stdout.write(`${relative(process.cwd(), dir)}: the manifest JSON Schemas are current.\n`)
}
