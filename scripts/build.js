// The JavaScript of `npm run build` (tsc writes the declarations): each published entry bundled with its
// own modules, so an app loads a few files instead of one per module of lib/ (Node's ESM loader costs about
// a millisecond per file). Code that entries share goes into chunks under dist/chunks/, once, so a class
// such as ManifestClientError is the same class whichever entry it is imported from. Dependencies stay
// imports, and `import()` of a module of lib/ stays lazy: it becomes a chunk loaded when it is called.
import { readFile } from 'node:fs/promises'
import { build } from 'esbuild'

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'))
// The oldest Node the package supports (`engines.node` is `>=MAJOR.MINOR`) decides what syntax is lowered.
const oldestNode = /^>=(\d+\.\d+)$/.exec(pkg.engines.node)?.[1]
if (oldestNode === undefined) throw new Error(`scripts/build.js reads engines.node as ">=MAJOR.MINOR", not "${pkg.engines.node}"`)

await build({
  entryPoints: ['lib/index.ts', 'lib/client/index.ts', 'lib/schema.ts', 'lib/cli/bin.ts'],
  outdir: 'dist',
  outbase: 'lib',
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  format: 'esm',
  platform: 'node',
  target: `node${oldestNode}`,
  packages: 'external',
  sourcemap: true,
  // The maps name the files of lib/, as tsc's did; the package does not ship lib/ nor copy it into the maps.
  sourcesContent: false,
  logLevel: 'warning'
})
