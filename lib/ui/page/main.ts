/*
 * The human page (docs/ui.md): fetches the manifest the page names in its `svc-manifest` meta element,
 * finds the endpoints in the response's `Link` header, and draws the service from the manifest alone,
 * so it shows exactly what an agent sees.
 */
import { authScheme, groupByTag, matchesFilter, type PageManifest } from '../catalog.js'
import { pageEndpoints, type Endpoints } from '../requests.js'
import { commandCard, type PageContext } from './command-view.js'
import { h, jsonView, replace, uid } from './dom.js'
import { channelsPanel, eventsPanel } from './events-view.js'
import { tokenBox } from './token.js'

async function start (): Promise<void> {
  const app = document.getElementById('app') as HTMLElement
  const manifestPath = document.querySelector<HTMLMetaElement>('meta[name="svc-manifest"]')?.content ?? '/.well-known/svc.json'
  const manifestUrl = new URL(manifestPath, location.href).href
  let manifest: PageManifest
  let endpoints: Endpoints
  try {
    const response = await fetch(manifestUrl, { headers: { accept: 'application/json' }, cache: 'no-cache' })
    if (!response.ok) throw new Error(`${manifestPath} answered ${response.status} ${response.statusText}`)
    manifest = await response.json() as PageManifest
    endpoints = pageEndpoints(manifestUrl, response.headers.get('link'))
  } catch (error) {
    app.replaceChildren(h('p', { className: 'status failed', attrs: { role: 'alert' } }, `The manifest could not be loaded: ${(error as Error).message}`))
    app.removeAttribute('aria-busy')
    return
  }
  document.title = `${manifest.name} — service manifest`
  const token = manifest.auth === undefined ? undefined : tokenBox(manifest.auth.description, authScheme(manifest))
  const context: PageContext = { manifest, endpoints, authorization: token === undefined ? () => '' : token.authorization }
  replace(app,
    serviceHeader(manifest, manifestUrl),
    token?.element ?? null,
    commandsSection(context),
    eventsPanel(manifest, endpoints, context.authorization),
    manifest.svc === '0.5.0' ? channelsPanel(manifest, endpoints, context.authorization) : null,
    typesSection(manifest)
  )
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
