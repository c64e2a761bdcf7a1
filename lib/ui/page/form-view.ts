/*
 * Renders the fields of lib/ui/form-fields.ts as labelled inputs, and reads back what was typed as a tree of raw
 * strings of the same shape. A field's accessible name is its name alone (`quantity`); its type, the
 * required mark, its description and its constraints are its accessible description, read after the name.
 * The visible label shows the name, `*` and the type, so the form reads the same with a screen reader,
 * with the keyboard alone and by eye. A JSON field says under it, as it is left, when its text does not
 * parse.
 */
import type { ArrayField, Field, JsonField, ObjectField } from '../form-fields.js'
import { rawOf, readJson, type Raw, type RawObject } from '../form-params.js'
import { isPlainObject } from '../../util/objects.js'
import { ownValue } from '../../util/own-key.js'
import { h, uid, type Child } from './dom.js'

export interface Control {
  element: HTMLElement
  read: () => Raw
}

/** The fields of a command's form, filled with `raw`. */
export function renderFields (form: ObjectField, raw: Raw): Control {
  const container = h('div', { className: 'fields' })
  const controls = objectControls(form, raw, container, true)
  if (form.fields.length === 0) container.appendChild(h('p', { className: 'note' }, 'This command takes no params.'))
  return { element: container, read: () => readObject(controls) }
}

function objectControls (field: ObjectField, raw: Raw, container: HTMLElement, mandatory: boolean): Map<string, Control> {
  const values: RawObject = isPlainObject(raw) ? raw : {}
  const controls = new Map<string, Control>()
  for (const child of field.fields) {
    const childRaw = ownValue(values, child.name) ?? rawOf(child)
    const control = renderField(child, childRaw, child.name, mandatory && child.required)
    controls.set(child.name, control)
    container.appendChild(control.element)
  }
  return controls
}

function readObject (controls: Map<string, Control>): RawObject {
  const raw: RawObject = Object.create(null)
  for (const [name, control] of controls) raw[name] = control.read()
  return raw
}

/**
 * One field. `mandatory`: the field and every object above it are required, so the browser may insist
 * on it (`required`); inside an optional object the mark is shown, and lib/ui/form-params.ts checks it once the
 * object is given.
 */
function renderField (field: Field, raw: Raw, label: string, mandatory: boolean): Control {
  switch (field.kind) {
    case 'object':
      return renderObject(field, raw, label, mandatory)
    case 'array':
      return renderArray(field, raw, label)
    default:
      return renderInput(field, raw, label, mandatory)
  }
}

function renderInput (field: Exclude<Field, ObjectField | ArrayField>, raw: Raw, label: string, mandatory: boolean): Control {
  const id = uid('field')
  const value = typeof raw === 'string' ? raw : ''
  const { parts, hint, attrs } = labelling(field, label, id)
  const common = { id, required: mandatory, attrs }
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement
  let invalid: HTMLElement | null = null
  switch (field.kind) {
    case 'text':
      input = h('input', {
        ...common,
        type: field.input,
        value,
        autocomplete: 'off',
        spellcheck: false,
        placeholder: field.placeholder,
        pattern: field.pattern,
        minLength: field.minLength,
        maxLength: field.maxLength
      })
      break
    case 'number':
      input = h('input', { ...common, type: 'number', step: 'any', value, min: numberAttribute(field.min), max: numberAttribute(field.max) })
      break
    case 'json': {
      const textarea = h('textarea', { ...common, rows: 3, value, placeholder: field.placeholder, spellcheck: false })
      invalid = jsonCheck(field, textarea, label, attrs['aria-describedby'], `${id}-invalid`)
      input = textarea
      break
    }
    default: {
      const options = field.kind === 'boolean'
        ? [{ label: 'true', value: 'true' }, { label: 'false', value: 'false' }]
        : field.options.map((option, index) => ({ label: option.label, value: String(index) }))
      const select = h('select', common)
      // A field that may be left out, or has no value yet, offers "not set".
      if (!mandatory || value === '') select.appendChild(h('option', { value: '' }, mandatory ? '— choose —' : '— not set —'))
      for (const option of options) select.appendChild(h('option', { value: option.value }, option.label))
      select.value = value
      input = select
    }
  }
  const element = h('div', { className: `field field-${field.kind}` }, h('label', { htmlFor: id }, ...parts), input, hint, invalid)
  return { element, read: () => input.value }
}

/**
 * A JSON field's own check: when it is left (`change`) holding text that does not parse, the message
 * shows under it, is added to its description, and the field is marked invalid; while it is marked, each
 * keystroke checks again, so the message goes as soon as the text parses. Run still lists every problem
 * and sends nothing (lib/ui/form-params.ts); an empty field is no problem here: it is left out, or asked for.
 */
function jsonCheck (field: JsonField, textarea: HTMLTextAreaElement, label: string, describedBy: string, id: string): HTMLElement {
  const message = h('p', { className: 'invalid', id, attrs: { 'aria-live': 'polite' } })
  const check = (): void => {
    const read = textarea.value.trim() === '' ? undefined : readJson(field, textarea.value)
    const problem = read !== undefined && 'problem' in read ? `${label} ${read.problem}` : ''
    message.textContent = problem
    if (problem === '') {
      textarea.removeAttribute('aria-invalid')
      textarea.setAttribute('aria-describedby', describedBy)
    } else {
      textarea.setAttribute('aria-invalid', 'true')
      textarea.setAttribute('aria-describedby', `${describedBy} ${id}`)
    }
  }
  textarea.addEventListener('change', check)
  textarea.addEventListener('input', () => {
    if (textarea.hasAttribute('aria-invalid')) check()
  })
  return message
}

function renderObject (field: ObjectField, raw: Raw, label: string, mandatory: boolean): Control {
  const { parts, hint, attrs } = labelling(field, label, uid('field'))
  const fieldset = h('fieldset', { className: 'object', attrs }, h('legend', {}, ...parts), hint)
  const controls = objectControls(field, raw, fieldset, mandatory)
  return { element: fieldset, read: () => readObject(controls) }
}

/** Items are added and removed with buttons; the list is drawn again each time, with what was typed. */
function renderArray (field: ArrayField, raw: Raw, label: string): Control {
  const list = h('ol', { className: 'items' })
  const add = h('button', { type: 'button', className: 'secondary add' }, `Add ${label === '' ? 'an' : `a ${label}`} item`)
  const { parts, hint, attrs } = labelling(field, label, uid('field'))
  const fieldset = h('fieldset', { className: 'array', attrs }, h('legend', {}, ...parts), hint, list, add)
  let items: Control[] = []
  const read = (): Raw[] => items.map((item) => item.read())
  const draw = (raws: Raw[], focus?: number): void => {
    items = []
    list.replaceChildren()
    raws.forEach((itemRaw, index) => {
      const itemLabel = `${label === '' ? 'item' : label} ${index + 1}`
      const control = renderField(field.item, itemRaw, itemLabel, true)
      const remove = h('button', {
        type: 'button',
        className: 'secondary remove',
        disabled: raws.length <= (field.minItems ?? 0),
        attrs: { 'aria-label': `Remove ${itemLabel}` },
        on: { click: () => draw(read().filter((_, at) => at !== index), -1) }
      }, 'Remove')
      items.push(control)
      list.appendChild(h('li', {}, control.element, remove))
    })
    add.disabled = field.maxItems !== undefined && raws.length >= field.maxItems
    if (focus === -1) add.focus()
    else if (focus !== undefined) list.children[focus]?.querySelector<HTMLElement>('input, select, textarea, button')?.focus()
  }
  add.addEventListener('click', () => {
    const raws = read()
    draw([...raws, rawOf(field.item)], raws.length)
  })
  draw(Array.isArray(raw) ? raw : [])
  return { element: fieldset, read }
}

interface Labelling {
  /** The visible label: the name, the required mark, the type (the registered type's name when there is one). */
  parts: Child[]
  /** The description and constraints, shown under the field; null when there are none. */
  hint: HTMLElement | null
  /** `aria-labelledby` and `aria-describedby` for the control or fieldset. */
  attrs: Record<string, string>
}

/**
 * What names and describes a field. Its accessible name is the name alone (the label's first part): a
 * label read whole would say `quantitynumber`. The marks after it, `*` and the type, are for the eye; a
 * screen reader gets them as words (`required, number.`) at the start of the accessible description,
 * from an element of their own that is not shown, followed by the hint.
 */
function labelling (field: Field, label: string, id: string): Labelling {
  const nameId = `${id}-name`
  const aboutId = `${id}-about`
  const hintId = `${id}-hint`
  const type = field.typeName ?? field.typeLabel
  const parts = [
    h('span', { className: 'name', id: nameId }, label),
    field.required ? h('span', { className: 'required', attrs: { 'aria-hidden': 'true' } }, '*') : null,
    h('span', { className: 'type', attrs: { 'aria-hidden': 'true' } }, type),
    h('span', { id: aboutId, hidden: true }, `${field.required ? 'required, ' : ''}${type}.`)
  ]
  const texts = [field.description, ...field.constraints].filter((part): part is string => part !== undefined && part !== '')
  const hint = texts.length === 0 ? null : h('p', { className: 'hint', id: hintId }, texts.join(' · '))
  return { parts, hint, attrs: { 'aria-labelledby': nameId, 'aria-describedby': hint === null ? aboutId : `${aboutId} ${hintId}` } }
}

function numberAttribute (value: number | undefined): string | undefined {
  return value === undefined ? undefined : String(value)
}
