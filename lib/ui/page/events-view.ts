/*
 * The events panel: the declared events, a choice of those to receive, and the frames of the stream as
 * they arrive. The channel panel (layout 0.5.0): one key of a channel, its state as each publish lands.
 */
import type { PageManifest } from '../catalog.js'
import { channelUrl, eventsQuery, type Endpoints } from '../requests.js'
import { h, jsonView, uid } from './dom.js'
import { openStream, type Frame, type OpenStream } from './stream.js'

/** Frames kept on the page; older ones are dropped, so a long session stays light. */
const KEPT_FRAMES = 100

export function eventsPanel (manifest: PageManifest, endpoints: Endpoints, authorization: () => string): HTMLElement {
  const names = Object.keys(manifest.events)
  const section = h('section', { id: 'events', className: 'panel', attrs: { 'aria-labelledby': 'events-title' } }, h('h2', { id: 'events-title' }, 'Events'))
  if (names.length === 0) {
    section.appendChild(h('p', { className: 'note' }, 'This service declares no events.'))
    return section
  }
  const choices = names.map((name) => {
    const id = uid('event')
    const box = h('input', { type: 'checkbox', id, checked: true, value: name })
    const event = manifest.events[name]
    const fields = Object.entries(event.data ?? {}).map(([field, descriptor]) => `${field}: ${descriptor.type}`).join(', ')
    return {
      box,
      element: h('li', {}, box, h('label', { htmlFor: id }, h('code', {}, name), ` — ${event.description}`, fields === '' ? null : h('span', { className: 'type' }, ` { ${fields} }`)))
    }
  })
  const frames = h('ol', { className: 'frames', attrs: { role: 'log', 'aria-label': 'Events received' } })
  const viewer = streamViewer(frames, (frame) => eventFrame(frame))
  const toggle = viewer.button('Subscribe', () => {
    const chosen = choices.filter((choice) => choice.box.checked).map((choice) => choice.box.value)
    if (chosen.length === 0) return { missing: 'Choose at least one event.' }
    return { url: `${endpoints.events}${eventsQuery(chosen, names)}` }
  }, authorization)
  section.append(
    h('fieldset', {}, h('legend', {}, 'Receive'), h('ul', { className: 'choices' }, ...choices.map((choice) => choice.element))),
    h('div', { className: 'row' }, toggle, viewer.status),
    frames
  )
  return section
}

export function channelsPanel (manifest: PageManifest, endpoints: Endpoints, authorization: () => string): HTMLElement {
  const channels = manifest.channels ?? {}
  const names = Object.keys(channels)
  const section = h('section', { id: 'channels', className: 'panel', attrs: { 'aria-labelledby': 'channels-title' } }, h('h2', { id: 'channels-title' }, 'Channels'))
  if (names.length === 0) {
    section.appendChild(h('p', { className: 'note' }, 'This service declares no channels.'))
    return section
  }
  const channelId = uid('channel')
  const keyId = uid('key')
  const select = h('select', { id: channelId }, ...names.map((name) => h('option', { value: name }, `${name} — ${channels[name].description}`)))
  const key = h('input', { id: keyId, type: 'text', required: true, autocomplete: 'off', spellcheck: false, attrs: { 'aria-describedby': `${keyId}-hint` } })
  const frames = h('ol', { className: 'frames', attrs: { role: 'log', 'aria-label': 'States received' } })
  const viewer = streamViewer(frames, (frame) => stateFrame(frame))
  const toggle = viewer.button('Watch', () => key.value === '' ? { missing: 'Type the key to watch.' } : { url: channelUrl(endpoints.channels, select.value, key.value) }, authorization)
  section.append(
    h('div', { className: 'field' }, h('label', { htmlFor: channelId }, 'Channel'), select),
    h('div', { className: 'field' }, h('label', { htmlFor: keyId }, 'Key'), key,
      h('p', { className: 'hint', id: `${keyId}-hint` }, 'The instance of the channel to watch, such as a cart id. With auth, by default only the subscriber whose subject is the key may watch it.')),
    h('div', { className: 'row' }, toggle, viewer.status),
    frames
  )
  return section
}

interface StreamViewer {
  status: HTMLElement
  /** The Subscribe/Stop button; `target()` is the URL to open, or a sentence saying what is missing. */
  button: (label: string, target: () => Target, authorization: () => string) => HTMLButtonElement
}

type Target = { url: string, missing?: undefined } | { url?: undefined, missing: string }

/** One stream at a time: a button that opens and stops it, a status line, and the frames, newest first. */
function streamViewer (frames: HTMLOListElement, render: (frame: Frame) => HTMLElement): StreamViewer {
  const status = h('span', { className: 'status', attrs: { role: 'status' } }, 'Not subscribed.')
  let open: OpenStream | undefined
  return {
    status,
    button (label, target, authorization) {
      const button = h('button', { type: 'button' }, label)
      const ended = (text: string): void => {
        open = undefined
        button.textContent = label
        status.textContent = text
      }
      button.addEventListener('click', () => {
        if (open !== undefined) {
          open.stop()
          return
        }
        const { url, missing } = target()
        if (url === undefined) {
          status.textContent = missing
          return
        }
        button.textContent = 'Stop'
        status.textContent = 'Connecting…'
        open = openStream({ url, authorization: authorization() }, {
          onOpen: () => { status.textContent = 'Subscribed: frames appear below as they arrive.' },
          onFrame: (frame) => {
            frames.prepend(render(frame))
            while (frames.children.length > KEPT_FRAMES) frames.lastElementChild?.remove()
          },
          onRefused: (response, body) => {
            const code = `${response.status} ${response.statusText}`.trim()
            ended(`Refused: ${code}`)
            frames.prepend(h('li', { className: 'refused' }, h('p', { className: 'status failed' }, code), parsedData(body)))
          },
          onEnd: (how, message) => ended(how === 'stopped' ? 'Stopped.' : how === 'ended' ? 'The server ended the stream.' : `The connection failed: ${message ?? ''}`)
        })
      })
      return button
    }
  }
}

function eventFrame (frame: Frame): HTMLElement {
  return h('li', { className: 'frame' },
    h('p', { className: 'frame-head' }, h('time', {}, new Date().toLocaleTimeString()), ' ', h('code', { className: 'frame-event' }, frame.event ?? 'message'), frame.id === undefined ? null : ` #${frame.id}`),
    parsedData(frame.data)
  )
}

function stateFrame (frame: Frame): HTMLElement {
  const data = parse(frame.data) as { version?: unknown, state?: unknown } | undefined
  return h('li', { className: 'frame' },
    h('p', { className: 'frame-head' }, h('time', {}, new Date().toLocaleTimeString()), ' ', h('code', {}, `version ${String(data?.version ?? frame.id ?? '?')}`)),
    data === undefined ? h('pre', { className: 'text' }, frame.data) : jsonView(data.state)
  )
}

function parsedData (text: string): HTMLElement {
  const value = parse(text)
  return value === undefined ? h('pre', { className: 'text' }, text) : jsonView(value)
}

function parse (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
