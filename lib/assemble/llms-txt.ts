import { DESCRIPTOR_KEYWORDS } from '../manifest/keywords.js'
import { paginationOf } from '../manifest/pagination.js'
import type { Manifest, ManifestCommand, ManifestField, ManifestProperty } from '../manifest/types.js'
import type { ServiceUrls } from './api-catalog.js'

/** Where the commands without a tag are listed, when some have one. */
const UNTAGGED = 'Other commands'
/** The keywords shown after a field's type and description, in the descriptors' key order. */
const CONSTRAINTS = DESCRIPTOR_KEYWORDS.filter(({ key }) => key !== 'description')

/**
 * The manifest as Markdown for a language model to read (llmstxt.org): `# name`, `> description`, `about`,
 * how to call (execute and its envelope, the auth scheme), the documents, then a section per tag with each
 * command (description, auth, params with their types and constraints, returns), then the events, the
 * channels and the types. Pure: the caller chooses which manifest (the public view) and where things are.
 */
export function llmsTxt (manifest: Readonly<Manifest>, urls: ServiceUrls): string {
  const lines = [`# ${oneLine(manifest.name)}`, '', `> ${oneLine(manifest.description)}`, '']
  if (manifest.about !== undefined && manifest.about.trim() !== '') lines.push(manifest.about.trim(), '')
  lines.push(...howToCall(manifest, urls), ...documents(urls))
  for (const [tag, names] of byTag(manifest.commands)) {
    lines.push(`## ${oneLine(tag)}`, '')
    for (const name of names) lines.push(...commandLines(name, manifest.commands[name]))
  }
  lines.push(...events(manifest, urls), ...channels(manifest, urls), ...types(manifest))
  return `${lines.join('\n').trimEnd()}\n`
}

function howToCall (manifest: Readonly<Manifest>, urls: ServiceUrls): string[] {
  const lines = ['## How to call', '']
  if (urls.execute !== undefined) {
    lines.push(`Call a command by its name: \`POST ${urls.execute}\` with \`content-type: application/json\` and the body ` +
      '`{"command": "<name>", "params": {…}}`. The answer is `{"ok": true, "result": …}`, or ' +
      '`{"ok": false, "error": {"code": …, "message": …, "status": …}}` with the HTTP status of the failure. ' +
      'Add `"stream": true` to read a command marked as streaming piece by piece (Server-Sent Events).', '')
  }
  if (urls.pipeline !== undefined) {
    lines.push(`Several calls in one request: \`POST ${urls.pipeline}\` with ` +
      '`{"steps": [{"command": "<name>", "params": {…}}, …]}`; the answer holds one result per step that ran.', '')
  }
  if (urls.mcp !== undefined) lines.push(`The same commands are MCP tools at ${urls.mcp} (Streamable HTTP).`, '')
  if (urls.execute === undefined && urls.mcp === undefined) lines.push('This service does not offer calls by name: its commands are its own HTTP routes.', '')
  if (manifest.auth === undefined) {
    lines.push('No command needs a credential.', '')
  } else {
    const scheme = manifest.auth.scheme ?? 'Bearer'
    lines.push(`Commands with auth \`required\` need the header \`Authorization: ${scheme} <token>\` (${oneLine(manifest.auth.description)}); ` +
      'with auth `optional`, a token is checked when one is sent. A refused token answers 401.', '')
  }
  return lines
}

function documents (urls: ServiceUrls): string[] {
  const lines = ['## Documents', '', `- [Service manifest](${urls.manifest}): the same as JSON, with every type; its \`checksum\` changes when a command does`]
  if (urls.page !== undefined) lines.push(`- [Page](${urls.page}): the commands for people, each one to try`)
  lines.push(`- [API catalog](${urls.apiCatalog}): where these documents are, as an RFC 9727 linkset`, '')
  return lines
}

/** Command names by tag, tags in alphabetical order and the untagged last; a command with several tags under each. */
function byTag (commands: Manifest['commands']): Map<string, string[]> {
  const groups = new Map<string, string[]>()
  const untagged: string[] = []
  for (const [name, command] of Object.entries(commands)) {
    const tags = command.tags ?? []
    if (tags.length === 0) untagged.push(name)
    for (const tag of new Set(tags)) groups.set(tag, [...groups.get(tag) ?? [], name])
  }
  const sorted = new Map([...groups].sort(([a], [b]) => a < b ? -1 : 1))
  if (untagged.length > 0) sorted.set(groups.size === 0 ? 'Commands' : UNTAGGED, untagged)
  return sorted
}

function commandLines (name: string, command: ManifestCommand): string[] {
  const lines = [`### ${name}`, '', oneLine(command.description), '']
  const scopes = command.requiredScopes === undefined ? '' : ` (scopes ${command.requiredScopes.map(code).join(', ')})`
  lines.push(`- Auth: ${command.auth ?? 'none'}${scopes}`)
  const params = Object.entries(command.params ?? {})
  if (params.length === 0) lines.push('- Params: none')
  else lines.push('- Params:', ...params.flatMap(([param, field]) => fieldLines(param, field, 1)))
  if (command.returns !== undefined) lines.push(`- Returns: ${fieldText(command.returns)}`, ...nested(command.returns, 1))
  const { idempotent, sideEffects } = command.hints ?? {}
  if (idempotent !== undefined) lines.push(`- Idempotent: ${idempotent ? 'yes' : 'no'}`)
  if (sideEffects !== undefined) lines.push(`- Side effects: ${sideEffects ? 'yes' : 'no'}`)
  if (command.rateLimit !== undefined) lines.push(`- Rate limit: at most ${command.rateLimit.maxRequests} requests per ${command.rateLimit.windowMs} ms`)
  const pagination = paginationOf(command.paginated)
  if (pagination !== undefined) {
    const { style, defaultLimit, maxLimit, items, next, total } = pagination
    const walk = style === 'cursor'
      ? `send the result's ${code(next)} back as ${code('cursor')} for the next page, until it is null or absent`
      : `send ${code('offset')} (the items read so far) for the next page, until a page has fewer items than ${code('limit')}`
    lines.push(`- Paginated (${style}): the items are in the result's ${code(items)}, the count across pages in ${code(total)} when given; ${walk}; ${code('limit')} is ${defaultLimit} unless sent, at most ${maxLimit}`)
  }
  if (command.stream === true) lines.push('- Streams its result: call it with `"stream": true` to read the pieces as they come')
  if (command.deprecated === true) lines.push('- Deprecated: prefer another command')
  for (const example of command.examples ?? []) {
    const title = example.title === undefined ? '' : ` (${oneLine(example.title)})`
    const result = 'result' in example ? ` → result ${code(JSON.stringify(example.result))}` : ''
    lines.push(`- Example${title}: params ${code(JSON.stringify(example.params))}${result}`)
  }
  lines.push('')
  return lines
}

function events (manifest: Readonly<Manifest>, urls: ServiceUrls): string[] {
  const declared = Object.entries(manifest.events)
  if (declared.length === 0 || urls.events === undefined) return []
  const auth = manifest.auth === undefined ? '' : ' With a token, also the events addressed to its subject.'
  const lines = ['## Events', '', `Read them as Server-Sent Events: \`GET ${urls.events}\` (every event), or \`?events=<name>,<name>\` for some.${auth}`, '']
  for (const [name, event] of declared) {
    lines.push(`### ${name}`, '', oneLine(event.description), '')
    const data = Object.entries(event.data ?? {})
    if (data.length > 0) lines.push('- Data:', ...data.flatMap(([field, descriptor]) => fieldLines(field, descriptor, 1)), '')
  }
  return lines
}

function channels (manifest: Readonly<Manifest>, urls: ServiceUrls): string[] {
  const declared = Object.entries(manifest.channels ?? {})
  if (declared.length === 0 || urls.channels === undefined) return []
  const lines = ['## Channels', '', `Watch one key's state as Server-Sent Events: \`GET ${urls.channels}/<channel>/<key>\`; the latest state comes first, then each new one.`, '']
  for (const [name, channel] of declared) lines.push(`- ${code(name)}: ${oneLine(channel.description)}`)
  lines.push('')
  return lines
}

function types (manifest: Readonly<Manifest>): string[] {
  const declared = Object.entries(manifest.types)
  if (declared.length === 0) return []
  const lines = ['## Types', '']
  for (const [name, type] of declared) lines.push(...fieldLines(name, type, 0))
  lines.push('')
  return lines
}

/** A field as a list item at `depth`, and its properties below it. */
function fieldLines (name: string, field: ManifestField | ManifestProperty, depth: number): string[] {
  const required = 'required' in field ? `, ${field.required ? 'required' : 'optional'}` : ''
  return [`${'  '.repeat(depth)}- ${code(name)} (${typeText(field)}${required})${aboutText(field)}`, ...nested(field, depth + 1)]
}

/** `returns` on one line: its type, then what its descriptor says. */
function fieldText (field: ManifestField): string {
  return `${typeText(field)}${aboutText(field)}`
}

/** `: ` and the field's description and constraints, or nothing when it has neither. */
function aboutText (field: ManifestField): string {
  const about = [field.description === undefined ? '' : oneLine(field.description), constraints(field)].filter((part) => part !== '').join('. ')
  return about === '' ? '' : `: ${about}`
}

/** The properties of an inline object, or of the objects an array holds, as list items at `depth`. */
function nested (field: ManifestField, depth: number): string[] {
  let holder = field
  while (holder.items !== undefined) holder = holder.items
  return Object.entries(holder.properties ?? {}).flatMap(([name, property]) => fieldLines(name, property, depth))
}

/** `string`, `Product`, `array of string`. */
function typeText (field: ManifestField): string {
  return field.items === undefined ? field.type : `${field.type} of ${typeText(field.items)}`
}

/** The keywords of the descriptor besides its description: `default \`1\``, `pattern \`^\d+$\``. */
function constraints (field: ManifestField): string {
  const parts: string[] = []
  for (const { key, value } of CONSTRAINTS) {
    const given = field[key]
    if (given !== undefined) parts.push(`${key} ${code(value === 'text' ? given as string : JSON.stringify(given))}`)
  }
  return parts.join(', ')
}

/** Text as an inline code span that no backtick inside it can end early (CommonMark). */
function code (text: string): string {
  const single = oneLine(text)
  const longest = Math.max(0, ...[...single.matchAll(/`+/g)].map(([run]) => run.length))
  const fence = '`'.repeat(longest + 1)
  const pad = longest > 0 ? ' ' : ''
  return `${fence}${pad}${single}${pad}${fence}`
}

/** Service text on one line: a newline in a description must not end a list item or start a heading. */
function oneLine (text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim()
}
