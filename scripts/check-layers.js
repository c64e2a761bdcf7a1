// Checks DESIGN §12's rule that arrows between the parts of lib/ run one way: a part imports only from
// itself and from the parts listed before it here (type imports included). A file beside a folder of the
// same name (lib/schema.ts, lib/schema/) belongs to that folder's part: a reader takes them for one unit,
// so an arrow between them and a third part both ways is a cycle too. Prints each import that points the
// other way, each pair of parts that import each other, and any part of lib/ missing from the list, and
// exits 1 if there is one.
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, normalize, relative } from 'node:path'

/**
 * The parts of lib/, lowest first: the shared layers, the client (which needs nothing of the plugin, and whose
 * checksumOf the plugin's entry exports as its own), then the plugin's stages in the data's order, then the
 * entries.
 */
const LAYERS = [
  'errors.ts', 'problems.ts', 'util', 'manifest', 'schema', 'client', 'route-url.ts', 'option-types.ts', 'options.ts',
  'lifecycle.ts', 'collect', 'assemble', 'catalog.ts', 'realtime', 'mcp', 'http', 'ui', 'start.ts', 'registry.ts', 'index.ts', 'cli'
]

const root = new URL('../lib/', import.meta.url).pathname
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g

const problems = []
/** Each part's imports of other parts: part → the parts it imports. */
const arrows = new Map()
for (const file of await sources(root)) {
  const from = partOf(file)
  if (!LAYERS.includes(from)) {
    problems.push(`lib/${relative(root, file)}: its part "${from}" is not in scripts/check-layers.js`)
    continue
  }
  const text = await readFile(file, 'utf8')
  for (const match of text.matchAll(IMPORT)) {
    const target = normalize(join(dirname(file), (match[1] ?? match[2]).replace(/\.js$/, '.ts')))
    const to = partOf(target)
    if (to !== from) arrows.set(from, new Set([...arrows.get(from) ?? [], to]))
    if (to !== from && LAYERS.indexOf(to) > LAYERS.indexOf(from)) {
      problems.push(`lib/${relative(root, file)} imports lib/${relative(root, target)}: "${from}" comes before "${to}"`)
    }
  }
}
for (const [from, targets] of arrows) {
  for (const to of targets) {
    if (from < to && arrows.get(to)?.has(from)) problems.push(`"${from}" and "${to}" import each other`)
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'))
  process.exit(1)
}
console.log('lib/: every import points to its own part or an earlier one')

/** The part of lib/ a file is in: its folder, or the file itself at the top, joined to a folder of its name. */
function partOf (file) {
  const first = relative(root, file).split('/')[0]
  const folder = first.replace(/\.ts$/, '')
  return first !== folder && LAYERS.includes(folder) ? folder : first
}

async function sources (dir) {
  const found = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...await sources(path))
    else if (entry.name.endsWith('.ts')) found.push(path)
  }
  return found
}
