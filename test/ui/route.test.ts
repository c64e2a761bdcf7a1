import { existsSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { request } from 'node:http'
import swagger from '@fastify/swagger'
import Fastify from 'fastify'
import t from 'tap'
import { EndpointLinks } from '../../lib/http/links.js'
import { OriginPolicy } from '../../lib/http/origins.js'
import { registerUiRoutes, uiAssetsDir } from '../../lib/http/ui.js'
import svcManifest from '../../lib/index.js'
import { readyApp, requiredOptions } from '../helpers/app.js'
import { UI_ASSETS, UI_FILES, uiAssetsBuilt } from '../helpers/ui-assets.js'

// The `ui` option and the routes that serve the page (lib/http/ui.ts), with the plugin run from lib/ and
// the page's files read from dist/ui/.
uiAssetsBuilt()

const ASSET_TYPES: Record<string, string> = {
  '': 'text/html; charset=utf-8',
  '/app.js': 'text/javascript; charset=utf-8',
  '/app.css': 'text/css; charset=utf-8',
  '/icon.svg': 'image/svg+xml'
}

t.test('ui is off by default: no page, no link', async (t) => {
  const app = await readyApp(t)
  t.equal((await app.inject('/svc/ui')).statusCode, 404)
  t.notMatch((await app.inject('/.well-known/svc.json')).headers.link, /svc-ui/)
  const off = await readyApp(t, { ui: false })
  t.equal((await off.inject('/svc/ui')).statusCode, 404)
})

t.test('ui: true serves the page at {basePath}/ui and names it in the manifest\'s Link header', async (t) => {
  const app = await readyApp(t, { ui: true })
  const link = (await app.inject('/.well-known/svc.json')).headers.link as string
  t.match(link, /<\/svc\/ui>; rel="svc-ui"/)
  t.match(link, /rel="svc-execute"/, 'beside the other endpoints')
  const page = await app.inject('/svc/ui')
  t.equal(page.statusCode, 200)
  t.match(page.body, '<meta name="svc-manifest" content="/.well-known/svc.json">', 'the page names the manifest')
  t.match(page.body, '<script src="/svc/ui/app.js" defer></script>', 'and its assets, by absolute path')
  t.notMatch(page.body, /\{\{/, 'every placeholder filled')
  for (const [path, type] of Object.entries(ASSET_TYPES)) {
    const response = await app.inject(`/svc/ui${path}`)
    t.equal(response.statusCode, 200, path)
    t.equal(response.headers['content-type'], type, path)
    t.equal(response.body, path === '' ? page.body : await readFile(join(UI_ASSETS, path.slice(1)), 'utf8'), `${path}: the built file`)
  }
})

t.test('where the page lives: basePath, a path of its own', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ basePath: '/api', ui: true }, '/api/ui'],
    [{ basePath: '/', ui: true }, '/ui'],
    [{ ui: {} }, '/svc/ui'],
    [{ ui: { path: '/console' } }, '/console'],
    [{ basePath: '/api', ui: { path: '/docs/service' } }, '/docs/service']
  ]
  for (const [options, path] of cases) {
    const app = await readyApp(t, options)
    t.match((await app.inject('/.well-known/svc.json')).headers.link, `<${path}>; rel="svc-ui"`, JSON.stringify(options))
    const page = await app.inject(path)
    t.equal(page.statusCode, 200, path)
    t.match(page.body, `href="${path}/app.css"`)
    t.equal((await app.inject(`${path}/app.js`)).statusCode, 200)
  }
})

t.test('the ui option is checked, each mistake named with its fix', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    ['yes', /"ui" must be true, false or \{ path \}; got/],
    [null, /"ui" must be true, false or \{ path \}/],
    [{ path: '/x', theme: 'dark' }, /"ui\.theme" must be absent \(ui takes path\)/],
    [{ path: 'ui' }, /"ui\.path" must be a URL path starting with "\/"/],
    [{ path: '/ui/' }, /"ui\.path" .*not ending in "\/"/],
    [{ path: '/' }, /"ui\.path"/],
    [{ path: '/ui/:id' }, /"ui\.path"/],
    [{ path: 3 }, /"ui\.path"/]
  ]
  for (const [ui, message] of cases) {
    await t.rejects(async () => { await Fastify().register(svcManifest, { ...requiredOptions, ui } as never) }, { code: 'FST_SVC_INVALID_OPTION', message }, JSON.stringify(ui))
  }
})

t.test('each file: ETag, 304, cache-control and the security headers', async (t) => {
  const app = await readyApp(t, { ui: true })
  for (const path of Object.keys(ASSET_TYPES)) {
    const url = `/svc/ui${path}`
    const response = await app.inject(url)
    t.match(response.headers, {
      'cache-control': 'no-cache',
      'content-security-policy': "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      etag: /^"[A-Za-z0-9_-]{27}"$/
    }, url)
    const etag = response.headers.etag as string
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, etag.slice(1, -1)]) {
      const cached = await app.inject({ url, headers: { 'if-none-match': ifNoneMatch } })
      t.equal(cached.statusCode, 304, `${url} with ${ifNoneMatch}`)
      t.equal(cached.body, '')
      t.equal(cached.headers.etag, etag)
      t.equal(cached.headers['content-security-policy'], response.headers['content-security-policy'])
    }
    t.equal((await app.inject({ url, headers: { 'if-none-match': '"stale"' } })).statusCode, 200, `${url}: another tag`)
    const head = await app.inject({ method: 'HEAD', url })
    t.equal(head.statusCode, 200, `HEAD ${url}`)
    t.equal(head.body, '')
  }
  const tags = await Promise.all(Object.keys(ASSET_TYPES).map(async (path) => (await app.inject(`/svc/ui${path}`)).headers.etag))
  t.equal(new Set(tags).size, tags.length, 'one tag per file')
})

t.test('the page is checked for origin and host first, as every endpoint that acts', async (t) => {
  const app = await readyApp(t, { ui: true })
  const foreign = await app.inject({ url: '/svc/ui/app.js', headers: { origin: 'https://evil.example' } })
  t.equal(foreign.statusCode, 403)
  t.equal(foreign.json().code, 'FST_SVC_FORBIDDEN_ORIGIN')
  t.equal((await app.inject({ url: '/svc/ui', headers: { origin: 'https://shop.example' } })).statusCode, 200, 'baseUrl\'s origin')

  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  const status = async (host: string): Promise<number> => await new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/svc/ui', headers: { host } }, (response) => {
      response.resume()
      resolve(response.statusCode as number)
    }).on('error', reject).end()
  })
  t.equal(await status('evil.example'), 403, 'a rebound DNS name')
  t.equal(await status(`127.0.0.1:${port}`), 200)
  const hooks = app.printRoutes({ includeHooks: true, commonPrefix: false })
  for (const route of ['/svc/ui', '/app.js', '/app.css', '/icon.svg']) {
    for (const method of ['GET', 'HEAD']) {
      t.match(hooks, `${route} (${method})\n`, `${method} ${route}`)
      const next = hooks.split(`${route} (${method})\n`)[1].split('\n')[0]
      t.match(next, /^[│\s]*• \(onRequest\) \["svcOriginCheck\(\)"\]$/, `${method} ${route}: the origin check, and only it, on request`)
    }
  }
})

t.test('the page never carries a cookie, and @fastify/swagger leaves it out', async (t) => {
  const app = Fastify()
  await app.register(swagger, { openapi: { info: { title: 'Shop', version: '1.0.0' } } })
  await app.register(svcManifest, { ...requiredOptions, ui: true })
  app.addHook('onRequest', async (request, reply) => { reply.header('set-cookie', 'session=1') })
  app.get('/plain', async () => 'ok')
  await app.ready()
  t.teardown(() => app.close())
  t.equal((await app.inject('/svc/ui')).headers['set-cookie'], undefined)
  t.equal((await app.inject('/plain')).headers['set-cookie'], 'session=1', 'other routes keep theirs')
  const paths = Object.keys((app.swagger() as { paths: Record<string, unknown> }).paths)
  t.same(paths.filter((path) => path.startsWith('/svc/ui')), [], 'hidden from the OpenAPI document')
  t.ok(paths.includes('/plain'))
})

t.test('paths in the page are escaped as attribute values', async (t) => {
  const app = await readyApp(t, { ui: true, path: '/a&b"c/svc.json' })
  const page = await app.inject('/svc/ui')
  t.match(page.body, '<meta name="svc-manifest" content="/a&#38;b&#34;c/svc.json">')
})

t.test('without its built files the page fails to register, saying how to build them', async (t) => {
  const register = async (locate: () => string | undefined): Promise<void> => {
    const app = Fastify()
    t.teardown(() => app.close())
    const config = { ui: { path: '/svc/ui' }, path: '/.well-known/svc.json', routeLog: {} }
    await registerUiRoutes(app, config, { origins: new OriginPolicy({ baseUrl: 'https://shop.example', allowedOrigins: [], allowedHosts: [] }), links: new EndpointLinks() }, locate)
  }
  const empty = t.testdir({})
  await t.rejects(register(() => empty), { code: 'FST_SVC_MISSING_DEPENDENCY', message: /from .* and index\.html could not be read there .*run `npm run build`, or set ui: false/ })
  await t.rejects(register(() => undefined), { code: 'FST_SVC_MISSING_DEPENDENCY', message: /no package\.json was found above the plugin's module/ })
  const links = new EndpointLinks()
  const app = Fastify()
  t.teardown(() => app.close())
  await registerUiRoutes(app, { ui: false, path: '/x', routeLog: {} }, { origins: new OriginPolicy({ baseUrl: 'https://shop.example', allowedOrigins: [], allowedHosts: [] }), links }, () => { throw new Error('not looked for') })
  t.equal(links.header(), '', 'ui off: the files are not even looked for')
})

t.test('the built files are found from lib/ and from dist/ alike', async (t) => {
  t.equal(uiAssetsDir(), UI_ASSETS, 'from lib/http/ui.ts')
  t.equal(uiAssetsDir(join(UI_ASSETS, '..', 'index.js')), UI_ASSETS, 'from dist/index.js')
  t.equal(uiAssetsDir(join(UI_ASSETS, '..', 'chunks', 'ui-x.js')), UI_ASSETS, 'from a chunk')
  t.equal(uiAssetsDir('/module.js'), existsSync('/package.json') ? '/dist/ui' : undefined, 'no package above')
})

t.test('the page is small, self-contained, and has nothing inline', async (t) => {
  const sizes = await Promise.all(UI_FILES.map(async (file) => (await stat(join(UI_ASSETS, file))).size))
  const total = sizes.reduce((sum, size) => sum + size, 0)
  t.ok(total < 100 * 1024, `${total} bytes in all, under 100 KB`)
  const [html, script, style] = await Promise.all(['index.html', 'app.js', 'app.css'].map(async (file) => await readFile(join(UI_ASSETS, file), 'utf8')))
  for (const [name, text] of [['index.html', html], ['app.js', script], ['app.css', style]]) {
    t.notMatch(text, /https?:\/\//, `${name} names no other site`)
  }
  t.notMatch(style, /@import|url\(/, 'the stylesheet loads nothing')
  t.same(html.match(/<script\b[^>]*>/g), ['<script src="{{ui}}/app.js" defer>'], 'one script, by src')
  t.notMatch(html, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or handler')
  t.notMatch(script, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, 'the script never writes markup')
})
