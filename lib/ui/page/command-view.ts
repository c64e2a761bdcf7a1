/*
 * One command: what the manifest says of it, a form for its params, and Run, which calls it through
 * execute exactly as an agent would, then shows the status and the result or the error envelope. A
 * `stream: true` command is run streamed: its pieces show as they arrive, its progress as a bar, and
 * Stop cancels it. A paginated command offers its next page after a run. The same call is shown as `curl`
 * and as a pipeline step, as the form is filled in.
 */
import { authScheme, hintPhrases, type PageCommand, type PageManifest } from '../catalog.js'
import { formOf, type Descriptor, type ObjectField } from '../form-fields.js'
import { collectParams, rawOf } from '../form-params.js'
import { curlOf, executeBody, executeFrame, pipelineStepOf, progressText, type Endpoints } from '../requests.js'
import { copyable, h, jsonView, replace, uid, type Child } from './dom.js'
import { renderFields, type Control } from './form-view.js'
import { openStream, type OpenStream } from './stream.js'
import { firstPageParams, nextPageParams, pageItems, paginationOf } from '../../manifest/pagination.js'

/** Pieces kept on the page for one streamed run; older ones are dropped, so an endless stream stays light. */
const KEPT_PIECES = 100

export interface PageContext {
  manifest: PageManifest
  endpoints: Endpoints
  /** The `Authorization` header for the token the visitor typed; `''` for none. */
  authorization: () => string
}

/** A collapsed card; its body (and form) is built the first time it is opened. */
export function commandCard (name: string, command: PageCommand, context: PageContext): HTMLDetailsElement {
  const summary = h('summary', {},
    h('code', { className: 'command-name' }, name),
    badges(command),
    h('span', { className: 'summary-text' }, command.description)
  )
  const card = h('details', { className: 'command' }, summary)
  card.dataset.command = name
  let built = false
  card.addEventListener('toggle', () => {
    if (!card.open || built) return
    built = true
    card.appendChild(commandBody(name, command, context))
  })
  return card
}

function badges (command: PageCommand): HTMLElement {
  return h('span', { className: 'badges' },
    command.auth === undefined ? null : h('span', { className: `badge auth-${command.auth}` }, command.auth === 'required' ? 'token required' : 'token optional'),
    command.deprecated === true ? h('span', { className: 'badge deprecated' }, 'deprecated') : null,
    command.stream === true ? h('span', { className: 'badge stream' }, 'streams') : null,
    paginationOf(command.paginated) === undefined ? null : h('span', { className: 'badge paginated' }, 'pages')
  )
}

function commandBody (name: string, command: PageCommand, context: PageContext): HTMLElement {
  const form = formOf(command.params, context.manifest.types)
  const body = h('div', { className: 'command-body' })
  body.appendChild(facts(command))
  const runner = callForm(name, command.stream === true, form, context)
  if (command.examples !== undefined && command.examples.length > 0) body.appendChild(examples(command, runner.fill))
  body.appendChild(runner.element)
  return body
}

/** Auth, scopes, hints, returns and deprecation, as a definition list. */
function facts (command: PageCommand): HTMLElement {
  const list = h('dl', { className: 'facts' })
  const add = (term: string, ...details: Child[]): void => {
    list.append(h('dt', {}, term), h('dd', {}, ...details))
  }
  add('Description', command.description)
  if (command.auth === 'required') add('Auth', 'A token is required.')
  if (command.auth === 'optional') add('Auth', 'A token is optional; when sent, it must be valid.')
  if (command.requiredScopes !== undefined && command.requiredScopes.length > 0) add('Scopes', ...tagList(command.requiredScopes))
  const hints = hintPhrases(command.hints)
  if (hints.length > 0) add('Hints', ...tagList(hints))
  if (command.returns !== undefined) add('Returns', ...descriptorSummary(command.returns))
  if (command.tags !== undefined && command.tags.length > 0) add('Tags', ...tagList(command.tags))
  if (command.deprecated === true) add('Deprecated', 'Still callable, but going away: prefer another command.')
  if (command.stream === true) add('Streams', 'Run shows its pieces and its progress as they come; Stop cancels it.')
  const pages = paginationOf(command.paginated)
  if (pages !== undefined) {
    const fields = pages.style === 'cursor' ? `items in "${pages.items}", the next page's cursor in "${pages.next}"` : `items in "${pages.items}", how many in all in "${pages.total}"`
    add('Pages', `${pages.style === 'cursor' ? 'Cursor' : 'Offset'} pages of ${pages.defaultLimit} items unless limit says otherwise (at most ${pages.maxLimit}): ${fields}. After a run, Next page asks for the page after it.`)
  }
  if (command.rateLimit !== undefined) {
    const { maxRequests, windowMs } = command.rateLimit
    add('Rate limit', `${maxRequests} requests per ${windowMs % 1000 === 0 ? `${windowMs / 1000} s` : `${windowMs} ms`}.`)
  }
  return list
}

function tagList (items: readonly string[]): Child[] {
  return items.map((item) => h('span', { className: 'tag' }, item))
}

function descriptorSummary (descriptor: Descriptor): Child[] {
  const type = descriptor.type === 'array' && descriptor.items !== undefined ? `array of ${descriptor.items.type}` : descriptor.type
  return [h('code', {}, type), descriptor.description === undefined ? null : ` — ${descriptor.description}`]
}

function examples (command: PageCommand, fill: (params: Record<string, unknown>) => void): HTMLElement {
  const list = h('ul', { className: 'examples' })
  command.examples?.forEach((example, index) => {
    const title = example.title ?? `Example ${index + 1}`
    list.appendChild(h('li', {},
      h('div', { className: 'row' },
        h('span', { className: 'example-title' }, title),
        h('button', { type: 'button', className: 'secondary', attrs: { 'aria-label': `Use ${title} in the form` }, on: { click: () => fill(example.params) } }, 'Use')
      ),
      jsonView(example.params),
      example.result === undefined ? null : h('details', {}, h('summary', {}, 'Its result'), jsonView(example.result))
    ))
  })
  return h('section', { className: 'examples-section', attrs: { 'aria-label': 'Examples' } }, h('h4', {}, 'Examples'), list)
}

interface CallForm {
  element: HTMLElement
  /** Puts an example's params into the form. */
  fill: (params: Record<string, unknown>) => void
}

function callForm (name: string, streams: boolean, form: ObjectField, context: PageContext): CallForm {
  const execute = context.endpoints.execute
  let control: Control = renderFields(form, rawOf(form))
  const run = h('button', { type: 'submit', disabled: execute === undefined }, 'Run')
  const reset = h('button', { type: 'button', className: 'secondary', on: { click: () => fill(undefined) } }, 'Reset')
  /** The streamed run going on, which Stop aborts. */
  let running: OpenStream | undefined
  const stop = h('button', { type: 'button', className: 'stop', hidden: true, on: { click: () => running?.stop() } }, 'Stop')
  const outcome = h('div', { className: 'outcome', attrs: { 'aria-live': 'polite' } })
  const sameCall = h('div', { className: 'same-call' })
  const submit = (event: Event): void => {
    event.preventDefault()
    if (running !== undefined) return
    call().catch((error: Error) => replace(outcome, h('p', { className: 'status failed' }, `The call could not be made: ${error.message}`)))
  }
  const element = h('form', { className: 'call', on: { submit, input: () => showSameCall(), change: () => showSameCall() } },
    control.element,
    h('div', { className: 'row actions' }, run, stop, reset,
      execute === undefined ? h('span', { className: 'note' }, 'This service does not serve execute (invoke is off): commands cannot be called from here.') : null),
    outcome,
    sameCall
  )

  function fill (params: Record<string, unknown> | undefined): void {
    const next = renderFields(form, rawOf(form, params))
    control.element.replaceWith(next.element)
    control = next
    showSameCall()
  }

  function read (): { params: Record<string, unknown>, problems: Array<{ message: string }> } {
    return collectParams(form, control.read())
  }

  function showSameCall (): void {
    const { params } = read()
    const withToken = context.authorization() !== '' || context.manifest.commands[name]?.auth !== undefined
    sameCall.replaceChildren(
      copyable('curl', curlOf(execute ?? `${location.origin}/svc/execute`, executeBody(name, params, streams), withToken ? authScheme(context.manifest) : undefined)),
      copyable('pipeline step', pipelineStepOf(name, params))
    )
  }

  async function call (): Promise<void> {
    const { params, problems } = read()
    if (problems.length > 0) {
      outcome.replaceChildren(h('ul', { className: 'problems', attrs: { role: 'alert' } }, ...problems.map((problem) => h('li', {}, problem.message))))
      return
    }
    if (streams) {
      await callStreamed(params)
      return
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
    const authorization = context.authorization()
    if (authorization !== '') headers.authorization = authorization
    outcome.replaceChildren(h('p', { className: 'status' }, 'Running…'))
    run.disabled = true
    const started = performance.now()
    try {
      const response = await fetch(execute as string, { method: 'POST', headers, body: JSON.stringify(executeBody(name, params)), cache: 'no-store' })
      const text = await response.text()
      replace(outcome, ...answer(response, text, Math.round(performance.now() - started)))
      const next = response.ok ? nextPageOf(params, text) : undefined
      if (next !== undefined) {
        const go = (): void => {
          fill(next)
          call().catch((error: Error) => replace(outcome, h('p', { className: 'status failed' }, `The call could not be made: ${error.message}`)))
        }
        outcome.appendChild(h('div', { className: 'row' }, h('button', { type: 'button', className: 'secondary next-page', on: { click: go } }, 'Next page')))
      }
    } catch (error) {
      outcome.replaceChildren(h('p', { className: 'status failed' }, `The request failed: ${(error as Error).message}`))
    } finally {
      run.disabled = false
    }
  }

  /** The params of the page after the one `text` (an execute envelope) holds, for a paginated command. */
  function nextPageOf (params: Record<string, unknown>, text: string): Record<string, unknown> | undefined {
    const pages = paginationOf(context.manifest.commands[name]?.paginated)
    if (pages === undefined) return undefined
    let envelope: { ok?: unknown, result?: unknown }
    try {
      envelope = JSON.parse(text)
    } catch {
      return undefined
    }
    if (envelope?.ok !== true || pageItems(pages, envelope.result) === undefined) return undefined
    return nextPageParams(pages, firstPageParams(pages, params), envelope.result)
  }

  /**
   * Runs the command streamed: `"stream": true`, the event stream read as it arrives. Pieces are listed
   * in order, progress moves the bar, and `done` or `error` ends the run; Stop aborts the request, which
   * the server takes as its caller going away and cancels the call.
   */
  async function callStreamed (params: Record<string, unknown>): Promise<void> {
    const status = h('p', { className: 'status' }, 'Running…')
    const barId = uid('progress')
    const bar = h('progress', { id: barId })
    const barText = h('span', { className: 'note progress-text', id: `${barId}-text` })
    bar.setAttribute('aria-describedby', barText.id)
    const progress = h('div', { className: 'progress', hidden: true }, h('label', { htmlFor: barId }, 'Progress'), bar, barText)
    const pieceCount = h('p', { className: 'label', hidden: true })
    const pieces = h('ol', { className: 'pieces', attrs: { 'aria-live': 'polite', 'aria-label': 'Pieces received' } })
    const last = h('div', { className: 'final' })
    outcome.replaceChildren(status, progress, pieceCount, pieces, last)
    let count = 0
    let finished = false
    const started = performance.now()
    const took = (): string => ` · ${Math.round(performance.now() - started)} ms`
    const counted = (): string => `${count} piece${count === 1 ? '' : 's'}`
    run.disabled = true
    stop.hidden = false
    try {
      await new Promise<void>((resolve) => {
        running = openStream({ url: execute as string, authorization: context.authorization(), body: executeBody(name, params, true) }, {
          onOpen: () => { status.textContent = 'Running: what the command sends shows below as it arrives.' },
          onFrame: ({ data }) => {
            const frame = executeFrame(data)
            if (frame === undefined || finished) return
            if (frame.type === 'chunk') {
              count += 1
              pieceCount.hidden = false
              pieceCount.textContent = count > KEPT_PIECES ? `Pieces (${count}, the last ${KEPT_PIECES} shown)` : `Pieces (${count})`
              pieces.appendChild(h('li', { className: 'piece' }, pieceView(frame.data, frame.encoding)))
              while (pieces.children.length > KEPT_PIECES) pieces.firstElementChild?.remove()
            } else if (frame.type === 'progress') {
              progress.hidden = false
              if (frame.total !== undefined && frame.total > 0) {
                bar.max = frame.total
                bar.value = Math.min(frame.progress, frame.total)
              } else {
                // No total: the bar says that work goes on, the text how far.
                bar.removeAttribute('value')
              }
              barText.textContent = progressText(frame)
            } else if (frame.type === 'done') {
              finished = true
              replace(status, h('strong', {}, 'Done'), ` · ${counted()}${took()}`)
              status.className = 'status succeeded'
              const shown = frame.encoding === undefined ? frame.result : frame
              replace(last, h('p', { className: 'label' }, shown === frame ? 'Answer' : 'Result'), jsonView(shown))
            } else {
              finished = true
              replace(status, h('strong', {}, `${frame.error.status} ${frame.error.code}`), ` · ${counted()}${took()}`)
              status.className = 'status failed'
              replace(last, h('p', { className: 'label' }, 'Error'), jsonView(frame))
            }
          },
          onRefused: (response, body) => {
            finished = true
            replace(outcome, ...answer(response, body, Math.round(performance.now() - started)))
            resolve()
          },
          onEnd: (how, message) => {
            if (!finished) {
              status.className = how === 'stopped' ? 'status stopped' : 'status failed'
              status.textContent = how === 'stopped'
                ? `Stopped after ${counted()}${took()}: the call was cancelled.`
                : how === 'ended' ? `The stream ended before its last frame, after ${counted()}.` : `The request failed: ${message ?? ''}`
            }
            resolve()
          }
        })
      })
    } finally {
      running = undefined
      // Stop goes away with the run: the keyboard's focus goes back to Run rather than to the page.
      const hadFocus = document.activeElement === stop
      stop.hidden = true
      run.disabled = false
      if (hadFocus) run.focus()
    }
  }

  showSameCall()
  return { element, fill }
}

/** One piece: JSON on one line (a piece is often one line of NDJSON), text as text, bytes as the base64 sent. */
function pieceView (data: unknown, encoding: string | undefined): HTMLElement {
  if (encoding !== undefined) return h('pre', { className: 'text' }, `${encoding}: ${String(data)}`)
  return typeof data === 'string' ? h('pre', { className: 'text' }, data) : jsonView(data, 0)
}

/** The status, and the result (or the whole envelope, when the call failed) as JSON. */
function answer (response: Response, text: string, ms: number): Child[] {
  const ok = response.ok
  const status = h('p', { className: `status ${ok ? 'succeeded' : 'failed'}` },
    h('strong', {}, `${response.status} ${response.statusText}`.trim()), ` · ${ms} ms`)
  const challenge = response.headers.get('www-authenticate')
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return [status, h('pre', { className: 'text' }, text)]
  }
  const envelope = body as { ok?: unknown, result?: unknown, encoding?: unknown }
  const shown = envelope.ok === true && envelope.encoding === undefined ? envelope.result : body
  return [
    status,
    challenge === null ? null : h('p', { className: 'note' }, h('code', {}, `www-authenticate: ${challenge}`)),
    h('p', { className: 'label' }, shown === body ? 'Answer' : 'Result'),
    jsonView(shown)
  ]
}
