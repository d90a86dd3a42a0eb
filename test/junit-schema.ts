// @ts-expect-error jsdom ships no types and this project installs none: only its XML parser is used here.
import { JSDOM } from 'jsdom'

/**
 * Checks JUnit XML against the Maven Surefire 3.0 report schema, the format Jenkins' JUnit plugin,
 * GitLab and most CI dashboards read: apache/maven-surefire,
 * maven-surefire-plugin/src/site/resources/xsd/surefire-test-report-3.0.xsd. No XSD validator is
 * installed here, so its rules are written out below, element by element, and checked on the document
 * jsdom's strict XML parser (saxes) builds; a document that is not well-formed XML throws there.
 * Returns every violation, each naming the element path and the rule.
 */
export function surefireViolations(xml: string): string[] {
  const document = new JSDOM(xml, { contentType: 'application/xml' }).window.document as XmlDocument
  const root = document.documentElement
  if (root.tagName !== 'testsuite') return [`the root is <${root.tagName}>, the schema's only root is <testsuite>`]
  return check(root, 'testsuite')
}

// --- internal ---

interface XmlElement {
  tagName: string
  attributes: ArrayLike<{ name: string; value: string }>
  childNodes: ArrayLike<{ nodeType: number; textContent: string | null }>
  children: ArrayLike<XmlElement>
  getAttribute(name: string): string | null
}
interface XmlDocument {
  documentElement: XmlElement
}

/** SUREFIRE_TIME in the XSD. */
const TIME = /^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?$/
const UNBOUNDED = Number.POSITIVE_INFINITY

interface Rule {
  /** Declared attributes: true when `use="required"`. The XSD declares no others. */
  attributes: Record<string, boolean>
  /** The xs:sequence of child elements with minOccurs/maxOccurs; undefined for text-only (xs:string, simpleContent). */
  sequence?: [name: string, min: number, max: number][]
}

const text: Rule = { attributes: {} }
const rerun: Rule = { attributes: { message: false, type: true }, sequence: [['stackTrace', 1, 1], ['system-out', 0, 1], ['system-err', 0, 1]] }
const RULES: Record<string, Rule> = {
  testsuite: {
    attributes: { version: false, name: true, time: false, tests: true, errors: true, skipped: true, failures: true, group: false },
    sequence: [['properties', 0, UNBOUNDED], ['testcase', 0, UNBOUNDED]],
  },
  properties: { attributes: {}, sequence: [['property', 0, UNBOUNDED]] },
  property: { attributes: { name: true, value: true }, sequence: [] },
  testcase: {
    attributes: { name: true, classname: false, group: false, time: true },
    sequence: [
      ['failure', 0, UNBOUNDED],
      ['rerunFailure', 0, UNBOUNDED],
      ['flakyFailure', 0, UNBOUNDED],
      ['skipped', 0, 1],
      ['error', 0, 1],
      ['rerunError', 0, UNBOUNDED],
      ['flakyError', 0, UNBOUNDED],
      ['system-out', 0, 1],
      ['system-err', 0, 1],
    ],
  },
  failure: { attributes: { message: false, type: true } },
  error: { attributes: { message: false, type: true } },
  skipped: { attributes: { message: false } },
  rerunFailure: rerun,
  flakyFailure: rerun,
  rerunError: rerun,
  flakyError: rerun,
  stackTrace: text,
  'system-out': text,
  'system-err': text,
}

function check(element: XmlElement, path: string): string[] {
  const rule = RULES[element.tagName] as Rule
  const problems: string[] = []
  for (const { name, value } of Array.from(element.attributes)) {
    if (!(name in rule.attributes)) problems.push(`${path}: attribute ${name} is not in the schema`)
    if (name === 'time' && !TIME.test(value)) problems.push(`${path}: time="${value}" is not a SUREFIRE_TIME`)
  }
  for (const [name, required] of Object.entries(rule.attributes)) {
    if (required && element.getAttribute(name) === null) problems.push(`${path}: required attribute ${name} is missing`)
  }
  const children = Array.from(element.children)
  if (rule.sequence === undefined) {
    if (children.length > 0) problems.push(`${path}: text only, but holds <${children[0]?.tagName}>`)
    return problems
  }
  const loose = Array.from(element.childNodes).filter((n) => n.nodeType === 3 && (n.textContent ?? '').trim() !== '')
  if (loose.length > 0) problems.push(`${path}: elements only, but holds text`)
  let at = 0
  for (const [name, min, max] of rule.sequence) {
    let count = 0
    while (at < children.length && children[at]?.tagName === name) {
      problems.push(...check(children[at] as XmlElement, `${path}/${name}[${count}]`))
      count++
      at++
    }
    if (count < min || count > max) problems.push(`${path}: <${name}> occurs ${count} times, the schema allows ${min} to ${max}`)
  }
  if (at < children.length) problems.push(`${path}: <${children[at]?.tagName}> is not allowed there (order or name)`)
  return problems
}
