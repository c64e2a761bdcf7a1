// Defect: names and messages from a remote manifest reached stdout and stderr raw, so a server could
// send terminal escape sequences (recolour, rewrite or hide lines, set the window title) or bidi overrides
// through `svc-manifest diff` and `check`. Every control character but the line feed the CLI itself
// writes is now printed as a `\uXXXX` escape; JSON output stays JSON that parses to the same value.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { Manifest } from '../../lib/client/index.js'
import { manifestOf, rawServer, sendJson } from '../helpers/raw-server.js'
import { cli, oneLine } from '../helpers/cli.js'

/** What a terminal would act on: C0 but the line feed, DEL, C1, bidi controls, line separators. */
// eslint-disable-next-line no-control-regex -- the test looks for control characters
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

const ESC = '\u001b'
const CLEAR_SCREEN = `${ESC}[2J`
const RED = `${ESC}[31m`
const TITLE = `${ESC}]0;pwned\u0007`
const RLO = '\u202e'
const CSI = '\u009b'

/** Serves `before` at /before.json and `after` at /after.json. */
async function serve (t: Test, before: Manifest, after: Manifest): Promise<string> {
  const { origin } = await rawServer(t, (request, response) => sendJson(response, request.url === '/before.json' ? before : after))
  return origin
}

t.test('diff: names and values from the manifests are escaped, one change per line', async (t) => {
  const before = manifestOf({ search: { description: 'Search', params: { q: { type: 'string', required: true } } } })
  const after = manifestOf(
    { search: { description: 'Search', params: { [`${CLEAR_SCREEN}q`]: { type: 'string', required: true }, 'a\nforged: line': { type: 'string', required: true } } } },
    { name: `Shop${RLO}txt.exe`, version: `${RED}9.9.9${CSI}0m` }
  )
  const origin = await serve(t, before, after)
  const run = await cli('diff', `${origin}/before.json`, `${origin}/after.json`)
  t.equal(run.code, 1)
  t.notMatch(run.stdout, RAW_CONTROL, 'no raw control character on stdout')
  t.equal(run.stdout, [
    '3 breaking changes:',
    '  param.added             command search: required param \\u001b[2Jq was added',
    '  param.added             command search: required param a\\u000aforged: line was added',
    '  param.removed           command search: param q was removed',
    '2 non-breaking changes:',
    '  service.changed         service name changed from "Shop" to "Shop\\u202etxt.exe"',
    '  service.changed         service version changed from "2.3.0" to "\\u001b[31m9.9.9\\u009b0m"',
    ''
  ].join('\n'))
})

t.test('diff --json and fetch: JSON with the characters escaped, parsing to the same value', async (t) => {
  const before = manifestOf()
  const after = manifestOf({ search: { description: `Search${TITLE}`, tags: [`${RLO}gnp.exe`] } }, { description: `Shop${CSI}2J` })
  const origin = await serve(t, before, after)
  const diff = await cli('diff', '--json', `${origin}/before.json`, `${origin}/after.json`)
  t.notMatch(diff.stdout, RAW_CONTROL)
  t.match(diff.stdout, '"command search: tags added [\\"\\u202egnp.exe\\"]"')
  t.match(JSON.parse(diff.stdout).nonBreaking, [{ kind: 'description.changed', name: 'description' }, { name: 'search' }, { message: `command search: tags added ["${RLO}gnp.exe"]` }])

  const fetched = await cli('fetch', `${origin}/after.json`)
  t.equal(fetched.code, 0)
  t.notMatch(fetched.stdout, RAW_CONTROL)
  t.match(fetched.stdout, '"description": "Shop\\u009b2J"')
  t.same(JSON.parse(fetched.stdout), after, 'the same manifest once parsed')
})

t.test('check: the problems quote remote names escaped, each on its own line', async (t) => {
  const manifest = { ...manifestOf(), [TITLE]: true, 'x\n  /forged: fine': 1 }
  const { origin } = await rawServer(t, (request, response) => sendJson(response, manifest))
  // Unknown fields are problems only to --strict: a reader keeps them.
  const remote = await cli('check', '--strict', `${origin}/svc.json`)
  t.equal(remote.code, 1)
  t.notMatch(remote.stderr, RAW_CONTROL)
  t.equal(remote.stderr, [
    `svc-manifest: ${origin}/svc.json (--strict) is not a valid manifest:`,
    '  /\\u001b]0;pwned\\u0007: Unexpected property',
    '  /x\\u000a  ~1forged: fine: Unexpected property',
    ''
  ].join('\n'))

  const path = join(t.testdir({}), `svc${RLO}.json`)
  await writeFile(path, JSON.stringify(manifest))
  const file = await cli('check', '--strict', path)
  t.equal(file.code, 1)
  t.notMatch(file.stderr, RAW_CONTROL)
  t.match(file.stderr, 'svc\\u202e.json (--strict) is not a valid manifest:\n')
})

t.test('errors: text a server chose (a Location) is escaped too', async (t) => {
  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(302, { location: Buffer.from('http://[\u009b2J', 'latin1').toString('latin1') }).end()
  })
  const run = await cli('fetch', `${origin}/svc.json`)
  t.equal(run.code, 2)
  t.notMatch(run.stderr, RAW_CONTROL)
  oneLine(t, run.stderr, 'redirected to "http://[\\u009b2J", which is not a URL')
})
