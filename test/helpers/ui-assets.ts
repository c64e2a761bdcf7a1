import { execFileSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))
/** Where `npm run build` writes the human page, and where lib/http/ui.ts reads it from. */
export const UI_ASSETS = join(root, 'dist', 'ui')
export const UI_FILES = ['index.html', 'app.js', 'app.css', 'icon.svg']

/**
 * The page's tests read dist/ui/, which `npm run build` writes (`npm test` builds first). A test run on
 * its own may find it missing, or older than lib/ui/: then dist/ui/ alone is built again
 * (`node scripts/build.js --ui`, well under a second; it swaps the folder in whole).
 */
export function uiAssetsBuilt (): string {
  const built = Math.min(...UI_FILES.map((file) => modified(join(UI_ASSETS, file))))
  const sources = [join(root, 'scripts', 'build.js'), ...filesUnder(join(root, 'lib', 'ui'))]
  if (sources.some((file) => modified(file) > built)) {
    execFileSync(process.execPath, ['scripts/build.js', '--ui'], { cwd: root, stdio: 'inherit' })
  }
  return UI_ASSETS
}

function modified (file: string): number {
  try {
    return statSync(file).mtimeMs
  } catch {
    return 0
  }
}

function filesUnder (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(path) : [path]
  })
}
