// The JavaScript of `npm run build` (tsc writes the declarations): each published entry bundled with its
// own modules, so an app loads a few files instead of one per module of lib/ (Node's ESM loader costs about
// a millisecond per file). Code that entries share goes into chunks under dist/chunks/, once, so a class
// such as ManifestClientError is the same class whichever entry it is imported from. Dependencies stay
// imports, and `import()` of a module of lib/ stays lazy: it becomes a chunk loaded when it is called.
//
// The human page (lib/ui/page/) is bundled for browsers into dist/ui/. `node scripts/build.js --ui` writes
// only dist/ui/ (the tests of the page do, when lib/ui/ is newer than what dist/ui/ holds).
import { copyFile, readFile, rename, rm } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { build } from 'esbuild'

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'))
// The oldest Node the package supports (the first range of `engines.node`, `^MAJOR.MINOR.PATCH` or
// `>=MAJOR.MINOR`) decides what syntax is lowered.
const oldestNode = /^(?:\^|>=)(\d+\.\d+)(?:\.\d+)?(?:\s|$)/.exec(pkg.engines.node)?.[1]
if (oldestNode === undefined) throw new Error(`scripts/build.js reads engines.node as "^MAJOR.MINOR.PATCH || …" or ">=MAJOR.MINOR", not "${pkg.engines.node}"`)

const uiOnly = process.argv.includes('--ui')

if (!uiOnly) {
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
    plugins: [onDemandReachesTheEntry()],
    logLevel: 'warning'
  })
}

await buildUi('dist/ui')

/**
 * The human page: its script and stylesheet bundled and minified for browsers, its HTML and icon copied.
 * No source maps: the page is a few files of its own, and each byte of it is served. Written to a fresh
 * folder, then moved into place, so a server that reads dist/ui/ never finds half a page.
 */
async function buildUi (outdir) {
  const staging = `${outdir}.${process.pid}.tmp`
  const old = `${outdir}.${process.pid}.old`
  await rm(staging, { recursive: true, force: true })
  const browser = { outdir: staging, bundle: true, minify: true, legalComments: 'none', logLevel: 'warning' }
  await build({ ...browser, entryPoints: { app: 'lib/ui/page/main.ts' }, format: 'iife', platform: 'browser', target: 'es2022' })
  await build({ ...browser, entryPoints: { app: 'lib/ui/page/style.css' } })
  for (const file of ['index.html', 'icon.svg']) await copyFile(`lib/ui/page/${file}`, `${staging}/${file}`)
  await rename(outdir, old).catch(ignoreCode('ENOENT'))
  // Another build may have put its page there in the meantime: the same sources, so either will do.
  await rename(staging, outdir).catch(ignoreCode('ENOTEMPTY', 'EEXIST'))
  await rm(staging, { recursive: true, force: true })
  await rm(old, { recursive: true, force: true })
}

/**
 * The main entry loads some of its modules with `import()` when an app needs them: the endpoints of the
 * features an app turns on (MCP, the page, discovery) when it registers them, the calls of commands on the
 * first one, the realtime hub when it starts. Each is a chunk of its own. esbuild puts a module in one chunk
 * per set of entries that reach it: what such a module shares with the main entry would be spread over a
 * chunk per combination of them, each one more file for every app to load at import. Each is made to import
 * lib/index.ts (loaded already when it is), so the code it shares with the main entry stays in the files
 * the main entry loads anyway.
 */
function onDemandReachesTheEntry () {
  const lib = resolve('lib')
  const entry = join(lib, 'index.ts')
  return { name: 'on-demand-reaches-the-entry', setup }
  function setup (build) {
    build.onResolve({ filter: /^\.\.?\// }, ({ path, importer, kind }) => {
      // The client and the CLI are entries of their own, which must not load the plugin.
      if (kind !== 'dynamic-import' || !importer.startsWith(`${lib}/`) || /\/lib\/(?:cli|client)\//.test(importer)) return undefined
      return { path: resolve(dirname(importer), path.replace(/\.js$/, '.ts')), namespace: 'on-demand' }
    })
    build.onLoad({ filter: /.*/, namespace: 'on-demand' }, ({ path }) => ({
      contents: `import ${JSON.stringify(entry)}\nexport * from ${JSON.stringify(path)}\n`,
      resolveDir: dirname(path),
      loader: 'js'
    }))
  }
}

function ignoreCode (...codes) {
  return (error) => {
    if (!codes.includes(error.code)) throw error
  }
}
