/*
 * The bearer token a visitor types. It is kept in sessionStorage only: this tab, until it closes; never in
 * localStorage or a cookie, so it is not sent anywhere by itself and does not outlive the visit.
 */
import { h, uid } from './dom.js'

const KEY = 'svc-ui:token'

export interface TokenBox {
  element: HTMLElement
  /** The `Authorization` header value for the token typed, trimmed; `''` for none. */
  authorization: () => string
}

/**
 * `scheme`: the word before the token, `Bearer` unless the manifest's auth names another. `committed` runs
 * when the visitor is done with the field (it loses focus or Enter, after a change) and when the token is
 * forgotten: the page then reads the manifest again, as that token sees it.
 */
export function tokenBox (description: string, scheme: string, committed: () => void): TokenBox {
  const id = uid('token')
  const input = h('input', {
    id,
    type: 'password',
    autocomplete: 'off',
    spellcheck: false,
    value: stored(),
    attrs: { 'aria-describedby': `${id}-hint` },
    on: { input: () => store(input.value.trim()), change: committed }
  })
  const forget = h('button', {
    type: 'button',
    className: 'secondary',
    on: {
      click: () => {
        input.value = ''
        store('')
        input.focus()
        committed()
      }
    }
  }, 'Forget')
  // A form, as browsers expect of a password field; Enter in it sends nothing anywhere.
  const element = h('form', { className: 'token', attrs: { 'aria-label': 'Credentials' }, on: { submit: (event) => event.preventDefault() } },
    h('label', { htmlFor: id }, `${scheme} token`),
    h('div', { className: 'row' }, input, forget),
    h('p', { className: 'hint', id: `${id}-hint` }, `${description.replace(/\.$/, '')}. Sent as "Authorization: ${scheme} …" with each call and subscription, and for the manifest: the commands shown are those it may see; kept in this tab only (sessionStorage).`)
  )
  return {
    element,
    authorization: () => {
      const token = input.value.trim()
      return token === '' ? '' : `${scheme} ${token}`
    }
  }
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
