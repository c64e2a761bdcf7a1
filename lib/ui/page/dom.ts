/*
 * The page's only way of making DOM: elements with properties and text nodes. Service text (names,
 * descriptions, results) always lands in a text node or a property, never in markup, so nothing the service
 * sends can become an element or a script.
 */
import { jsonTokens } from '../json-view.js'

export type Child = Node | string | null | undefined | false

export interface Props {
  /** DOM properties: `className`, `id`, `type`, `value`, `htmlFor`, `disabled`, … */
  [property: string]: unknown
  /** Attributes that have no property of their own: `aria-*`, `role`. */
  attrs?: Record<string, string>
  on?: Record<string, (event: Event) => void>
}

export function h<K extends keyof HTMLElementTagNameMap> (tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [key, value] of Object.entries(props)) {
    if (key === 'attrs') {
      for (const [name, text] of Object.entries(value as Record<string, string>)) element.setAttribute(name, text)
    } else if (key === 'on') {
      for (const [type, listener] of Object.entries(value as Record<string, (event: Event) => void>)) element.addEventListener(type, listener)
    } else if (/html/i.test(key)) {
      // htmlFor is a label's `for`; innerHTML and outerHTML never take service text.
      if (key !== 'htmlFor') throw new Error(`h() does not set ${key}`)
      ;(element as HTMLLabelElement).htmlFor = value as string
    } else if (value !== undefined) {
      ;(element as unknown as Record<string, unknown>)[key] = value
    }
  }
  append(element, children)
  return element
}

export function append (parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child)
  }
}

/** `parent.replaceChildren()` with the page's children: absent ones skipped. */
export function replace (parent: Element, ...children: Child[]): void {
  parent.replaceChildren()
  append(parent, children)
}

let lastId = 0
/** An id for a label's `for` and `aria-describedby`, unique on the page. */
export function uid (prefix: string): string {
  lastId += 1
  return `${prefix}-${lastId}`
}

/** A value as indented JSON (`indent` 0: on one line), one span per token, coloured by the stylesheet. */
export function jsonView (value: unknown, indent = 2): HTMLPreElement {
  const code = h('code')
  for (const token of jsonTokens(value, indent)) {
    code.appendChild(token.kind === 'space' || token.kind === 'punctuation' ? document.createTextNode(token.text) : h('span', { className: `j-${token.kind}` }, token.text))
  }
  return h('pre', { className: 'json', tabIndex: 0 }, code)
}

/** A block of text to copy, with its Copy button; the button says whether it worked. */
export function copyable (label: string, text: string): HTMLElement {
  const pre = h('pre', { className: 'copy-text', tabIndex: 0 }, h('code', {}, text))
  const note = h('span', { className: 'note', attrs: { role: 'status' } })
  const button = h('button', {
    type: 'button',
    className: 'secondary',
    attrs: { 'aria-label': `Copy ${label}` },
    on: {
      click: () => {
        // Undefined outside a secure context (plain http from another machine).
        const clipboard = navigator.clipboard as Clipboard | undefined
        const copied = clipboard === undefined ? Promise.reject(new Error('no clipboard')) : clipboard.writeText(text)
        copied.then(() => {
          note.textContent = 'Copied.'
        }, () => {
          // Without clipboard access: the text is selected for Ctrl+C.
          const range = document.createRange()
          range.selectNodeContents(pre)
          const selection = getSelection()
          selection?.removeAllRanges()
          selection?.addRange(range)
          note.textContent = 'Selected: press Ctrl+C to copy.'
        })
      }
    }
  }, 'Copy')
  return h('div', { className: 'copyable' }, h('div', { className: 'copy-bar' }, h('span', { className: 'copy-label' }, label), button, note), pre)
}
