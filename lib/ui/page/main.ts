/*
 * The human page (docs/ui.md): fetches the manifest the page names in its `svc-manifest` meta element,
 * finds the endpoints in the response's `Link` header, and draws the service from the manifest alone,
 * so it shows exactly what an agent sees. Once a token is entered, the manifest is read again with it:
 * the commands that token may see (hidden ones included, docs/auth.md#audiences).
 */
import { authScheme, groupByTag, matchesFilter, type PageManifest } from '../catalog.js'
import { pageEndpoints, type Endpoints } from '../requests.js'
import { commandCard, type PageContext } from './command-view.js'
import { h, jsonView, replace, uid } from './dom.js'
import { channelsPanel, eventsPanel } from './events-view.js'
import { tokenBox } from './token.js'

interface Loaded {
  manifest: PageManifest
  endpoints: Endpoints
}

/** The manifest as `authorization` sees it (`''`: the public one), and the endpoints its `Link` header names. */
async function load (manifestPath: string, manifestUrl: string, authorization: string): Promise<Loaded> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (authorization !== '') headers.authorization = authorization
  const response = await fetch(manifestUrl, { headers, cache: 'no-cache' })
  if (!response.ok) throw new Error(`${manifestPath} answered ${response.status} ${response.statusText}`)
  return { manifest: await response.json() as PageManifest, endpoints: pageEndpoints(manifestUrl, response.headers.get('link')) }
}

async function start (): Promise<void> {
  const app = document.getElementById('app') as HTMLElement
  const manifestPath = document.querySelector<HTMLMetaElement>('meta[name="svc-manifest"]')?.content ?? '/.well-known/svc.json'
  const manifestUrl = new URL(manifestPath, location.href).href
  let loaded: Loaded
  try {
    loaded = await load(manifestPath, manifestUrl, '')
  } catch (error) {
    app.replaceChildren(h('p', { className: 'status failed', attrs: { role: 'alert' } }, `The manifest could not be loaded: ${(error as Error).message}`))
    app.removeAttribute('aria-busy')
    return
  }
  const { manifest } = loaded
  document.title = `${manifest.name} — service manifest`
  // The token box stays in place while the view around it is drawn again.
  const header = h('div', { className: 'view-header' })
  const view = h('div', { className: 'view' })
  /** What is drawn: the view's checksum, and the refusal shown above it. A view already drawn is left as it is (open cards, answers). */
  let drawn: string | undefined
  const draw = ({ manifest, endpoints }: Loaded, refused?: string): void => {
    const key = `${manifest.checksum} ${refused ?? ''}`
    if (key === drawn) return
    drawn = key
    const context: PageContext = { manifest, endpoints, authorization: token === undefined ? () => '' : token.authorization }
    replace(header, serviceHeader(manifest, manifestUrl))
    replace(view,
      refused === undefined ? null : h('p', { className: 'status failed', attrs: { role: 'alert' } }, refused),
      commandsSection(context),
      eventsPanel(manifest, endpoints, context.authorization),
      manifest.svc === '0.5.0' ? channelsPanel(manifest, endpoints, context.authorization) : null,
      typesSection(manifest)
    )
  }
  const publicView = loaded
  /** Reads the manifest again as the token sees it; a refused token shows the public view, and says so. */
  let reads = 0
  const reload = async (): Promise<void> => {
    // Only the latest token's answer is drawn: a slower read begun with an earlier token is dropped.
    const read = ++reads
    const authorization = (token as { authorization: () => string }).authorization()
    if (authorization === '') return draw(publicView)
    try {
      const view = await load(manifestPath, manifestUrl, authorization)
      if (read === reads) draw(view)
    } catch (error) {
      if (read === reads) draw(publicView, `The manifest could not be loaded with this token: ${(error as Error).message}. The public commands are shown.`)
    }
  }
  const token = manifest.auth === undefined ? undefined : tokenBox(manifest.auth.description, authScheme(manifest), () => { reload().catch(() => {}) })
  draw(loaded)
  replace(app, header, token?.element ?? null, view)
  if (token !== undefined && token.authorization() !== '') await reload()
  app.removeAttribute('aria-busy')
}

function serviceHeader (manifest: PageManifest, manifestUrl: string): HTMLElement {
  const facts = h('dl', { className: 'service-facts' })
  const add = (term: string, detail: Node | string): void => {
    facts.append(h('dt', {}, term), h('dd', {}, detail))
  }
  add('Version', manifest.version)
  add('Layout', manifest.svc)
  add('Checksum', h('code', { className: 'checksum' }, manifest.checksum))
  add('Base URL', h('code', {}, manifest.baseUrl))
  add('Updated', manifest.updatedAt)
  add('Manifest', h('a', { href: manifestUrl }, new URL(manifestUrl).pathname))
  return h('header', { className: 'service' },
    h('h1', {}, manifest.name),
    h('p', { className: 'description' }, manifest.description),
    manifest.about === undefined ? null : h('p', { className: 'about' }, manifest.about),
    facts
  )
}

function commandsSection (context: PageContext): HTMLElement {
  const { commands } = context.manifest
  const filterId = uid('filter')
  const filter = h('input', { id: filterId, type: 'search', autocomplete: 'off', spellcheck: false, placeholder: 'name, description or tag' })
  const count = h('p', { className: 'note', attrs: { role: 'status' } })
  const groups = groupByTag(commands).map(({ tag, names }) => {
    const cards = names.map((name) => ({ name, card: commandCard(name, commands[name], context) }))
    const headingId = uid('tag')
    const element = h('section', { className: 'tag-group', attrs: { 'aria-labelledby': headingId } },
      h('h3', { id: headingId }, tag),
      ...cards.map(({ card }) => card))
    return { element, cards }
  })
  const total = Object.keys(commands).length
  const apply = (): void => {
    const seen = new Set<string>()
    for (const group of groups) {
      let visible = 0
      for (const { name, card } of group.cards) {
        const match = matchesFilter(name, commands[name], filter.value)
        card.hidden = !match
        if (match) {
          visible++
          seen.add(name)
        }
      }
      group.element.hidden = visible === 0
    }
    count.textContent = filter.value.trim() === '' ? `${total} command${total === 1 ? '' : 's'}.` : `${seen.size} of ${total} commands match.`
  }
  filter.addEventListener('input', apply)
  apply()
  return h('section', { id: 'commands', className: 'panel', tabIndex: -1, attrs: { 'aria-labelledby': 'commands-title' } },
    h('h2', { id: 'commands-title' }, 'Commands'),
    h('div', { className: 'field filter' }, h('label', { htmlFor: filterId }, 'Filter commands'), filter),
    count,
    total === 0 ? h('p', { className: 'note' }, 'This service declares no commands.') : null,
    ...groups.map((group) => group.element)
  )
}

function typesSection (manifest: PageManifest): HTMLElement | null {
  const names = Object.keys(manifest.types)
  if (names.length === 0) return null
  return h('section', { id: 'types', className: 'panel', attrs: { 'aria-labelledby': 'types-title' } },
    h('h2', { id: 'types-title' }, 'Types'),
    ...names.map((name) => {
      const type = manifest.types[name]
      return h('details', { className: 'type-def' },
        h('summary', {}, h('code', {}, name), type.description === undefined ? null : h('span', { className: 'summary-text' }, type.description)),
        jsonView(type))
    })
  )
}

start().catch((error: Error) => {
  const app = document.getElementById('app') as HTMLElement
  replace(app, h('p', { className: 'status failed', attrs: { role: 'alert' } }, `The page could not be drawn: ${error.message}`))
})
