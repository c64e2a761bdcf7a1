/*
 * Renders the fields of lib/ui/form-fields.ts as labelled inputs, and reads back what was typed as a tree of raw
 * strings of the same shape. Every input has a label (`for`) and its description and constraints as its
 * accessible description, so the form reads the same with a screen reader and the keyboard alone.
 */
import type { ArrayField, Field, ObjectField } from '../form-fields.js'
import { rawOf, type Raw, type RawObject } from '../form-params.js'
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
  const values = isRawObject(raw) ? raw : {}
  const controls = new Map<string, Control>()
  for (const child of field.fields) {
    const childRaw = Object.hasOwn(values, child.name) ? values[child.name] : rawOf(child)
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
  const hintId = `${id}-hint`
  const value = typeof raw === 'string' ? raw : ''
  const described = hint(field, hintId)
  const attrs: Record<string, string> = {}
  if (described !== null) attrs['aria-describedby'] = hintId
  const common = { id, required: mandatory, attrs }
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement
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
    case 'json':
      input = h('textarea', { ...common, rows: 3, value, placeholder: field.placeholder, spellcheck: false })
      break
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
  const element = h('div', { className: `field field-${field.kind}` }, labelFor(field, label, id), input, described)
  return { element, read: () => input.value }
}

function renderObject (field: ObjectField, raw: Raw, label: string, mandatory: boolean): Control {
  const fieldset = h('fieldset', { className: 'object' }, h('legend', {}, ...labelParts(field, label)), hint(field, uid('hint')))
  const controls = objectControls(field, raw, fieldset, mandatory)
  return { element: fieldset, read: () => readObject(controls) }
}

/** Items are added and removed with buttons; the list is drawn again each time, with what was typed. */
function renderArray (field: ArrayField, raw: Raw, label: string): Control {
  const list = h('ol', { className: 'items' })
  const add = h('button', { type: 'button', className: 'secondary add' }, `Add ${label === '' ? 'an' : `a ${label}`} item`)
  const fieldset = h('fieldset', { className: 'array' }, h('legend', {}, ...labelParts(field, label)), hint(field, uid('hint')), list, add)
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

function labelFor (field: Field, label: string, id: string): HTMLLabelElement {
  return h('label', { htmlFor: id }, ...labelParts(field, label))
}

/** The name, the required mark, and the type (the registered type's name when there is one). */
function labelParts (field: Field, label: string): Child[] {
  return [
    h('span', { className: 'name' }, label),
    field.required ? h('span', { className: 'required', attrs: { 'aria-label': 'required' } }, '*') : null,
    h('span', { className: 'type' }, field.typeName ?? field.typeLabel)
  ]
}

function hint (field: Field, id: string): HTMLElement | null {
  const parts = [field.description, ...field.constraints].filter((part): part is string => part !== undefined && part !== '')
  return parts.length === 0 ? null : h('p', { className: 'hint', id }, parts.join(' · '))
}

function numberAttribute (value: number | undefined): string | undefined {
  return value === undefined ? undefined : String(value)
}

function isRawObject (raw: Raw): raw is RawObject {
  return typeof raw === 'object' && !Array.isArray(raw)
}
