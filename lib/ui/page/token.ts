/*
 * The bearer token a visitor types. It is kept in sessionStorage only: this tab, until it closes; never in
 * localStorage or a cookie, so it is not sent anywhere by itself and does not outlive the visit.
 */
import { h, uid } from './dom.js'

const KEY = 'svc-ui:token'

export interface TokenBox {
  element: HTMLElement
  /** The token as typed, trimmed; `''` for none. */
  current: () => string
}

export function tokenBox (description: string): TokenBox {
  const id = uid('token')
  const input = h('input', {
    id,
    type: 'password',
    autocomplete: 'off',
    spellcheck: false,
    value: stored(),
    attrs: { 'aria-describedby': `${id}-hint` },
    on: { input: () => store(input.value.trim()) }
  })
  const forget = h('button', {
    type: 'button',
    className: 'secondary',
    on: {
      click: () => {
        input.value = ''
        store('')
        input.focus()
      }
    }
  }, 'Forget')
  // A form, as browsers expect of a password field; Enter in it sends nothing anywhere.
  const element = h('form', { className: 'token', attrs: { 'aria-label': 'Credentials' }, on: { submit: (event) => event.preventDefault() } },
    h('label', { htmlFor: id }, 'Bearer token'),
    h('div', { className: 'row' }, input, forget),
    h('p', { className: 'hint', id: `${id}-hint` }, `${description.replace(/\.$/, '')}. Sent as "Authorization: Bearer …" with each call and subscription; kept in this tab only (sessionStorage).`)
  )
  return { element, current: () => input.value.trim() }
}

/** Storage can be off (a browser setting): the token then lives in the field only. */
function stored (): string {
  try {
    return sessionStorage.getItem(KEY) ?? ''
  } catch {
    return ''
  }
}

function store (token: string): void {
  try {
    if (token === '') sessionStorage.removeItem(KEY)
    else sessionStorage.setItem(KEY, token)
  } catch {}
}
