import type { CardComponent, Template, TemplateButton, TemplateCategory, TemplateComponent } from "../../api/types"

/*
 * The template builder's form state and its translation to SPEC §2.2 components (and
 * back, for the edit form). Components come out in a fixed order (HEADER, BODY, FOOTER,
 * BUTTONS, CAROUSEL), so a 422's `components.N...` is traced to the form's section.
 */

export type ButtonKind = "QUICK_REPLY" | "URL" | "PHONE_NUMBER" | "COPY_CODE"
export interface ButtonRow {
  readonly key: number
  readonly kind: ButtonKind
  readonly text: string
  /** URL of a URL button, number of a PHONE_NUMBER one, example code of a COPY_CODE one. */
  readonly value: string
  /** A dynamic URL's fully resolved example. */
  readonly example: string
}

export type HeaderKind = "NONE" | "TEXT" | "IMAGE" | "VIDEO" | "DOCUMENT" | "LOCATION"
export interface HeaderState {
  readonly format: HeaderKind
  readonly text: string
  readonly handle: string
}

export interface CardState {
  readonly key: number
  readonly header: HeaderState
  readonly body: string
  readonly examples: Readonly<Record<string, string>>
  readonly buttons: ReadonlyArray<ButtonRow>
}

export type OtpKind = "COPY_CODE" | "ONE_TAP" | "ZERO_TAP"
export interface BuilderState {
  readonly category: TemplateCategory
  readonly parameterFormat: "POSITIONAL" | "NAMED"
  readonly header: HeaderState
  readonly body: string
  /** Sample values by placeholder name (`1`, `first_name`). */
  readonly examples: Readonly<Record<string, string>>
  readonly footer: string
  readonly buttons: ReadonlyArray<ButtonRow>
  readonly carousel: boolean
  readonly cards: ReadonlyArray<CardState>
  readonly securityRecommendation: boolean
  readonly codeExpiration: string
  readonly otpType: OtpKind
  readonly otpText: string
  readonly packageName: string
  readonly signatureHash: string
}

let keys = 0
export const nextKey = () => ++keys

export const noHeader: HeaderState = { format: "NONE", text: "", handle: "" }
export const newButton = (kind: ButtonKind = "QUICK_REPLY"): ButtonRow => ({ key: nextKey(), kind, text: "", value: "", example: "" })
export const newCard = (): CardState => ({ key: nextKey(), header: { format: "IMAGE", text: "", handle: "" }, body: "", examples: {}, buttons: [newButton()] })

export const emptyBuilder = (category: TemplateCategory = "utility"): BuilderState => ({
  category,
  parameterFormat: "POSITIONAL",
  header: noHeader,
  body: "",
  examples: {},
  footer: "",
  buttons: [],
  carousel: false,
  cards: [],
  securityRecommendation: true,
  codeExpiration: "10",
  otpType: "COPY_CODE",
  otpText: "Copy code",
  packageName: "",
  signatureHash: ""
})

/** Distinct placeholder names of a text, in order of first appearance (`{{1}}` → `1`). */
export const placeholders = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const match of text.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)) if (!out.includes(match[1]!)) out.push(match[1]!)
  return out
}

const bodyComponent = (text: string, examples: Readonly<Record<string, string>>, named: boolean) => {
  const names = placeholders(text)
  if (names.length === 0) return { type: "BODY" as const, text }
  return named
    ? { type: "BODY" as const, text, example: { body_text_named_params: names.map((n) => ({ param_name: n, example: examples[n] ?? "" })) as [{ param_name: string; example: string }] } }
    : { type: "BODY" as const, text, example: { body_text: [names.map((n) => examples[n] ?? "")] } }
}

const headerComponent = (h: HeaderState) => {
  switch (h.format) {
    case "NONE":
      return undefined
    case "TEXT":
      return { type: "HEADER" as const, format: "TEXT" as const, text: h.text }
    case "LOCATION":
      return { type: "HEADER" as const, format: "LOCATION" as const }
    default:
      return { type: "HEADER" as const, format: h.format, ...(h.handle === "" ? {} : { example: { header_handle: [h.handle] } }) }
  }
}

const button = (b: ButtonRow): TemplateButton => {
  switch (b.kind) {
    case "QUICK_REPLY":
      return { type: "QUICK_REPLY", text: b.text }
    case "URL":
      return { type: "URL", text: b.text, url: b.value, ...(b.example.trim() === "" ? {} : { example: [b.example.trim()] }) }
    case "PHONE_NUMBER":
      return { type: "PHONE_NUMBER", text: b.text, phone_number: b.value }
    case "COPY_CODE":
      return { type: "COPY_CODE", example: b.value, ...(b.text === "" ? {} : { text: b.text }) }
  }
}

/** Where each section of the form landed in the components list (for the 422's paths). */
export interface Sections {
  header?: number
  body?: number
  footer?: number
  buttons?: number
  carousel?: number
}

/** The components the form describes, and the index of each section among them. */
export const toComponents = (s: BuilderState): { components: Array<TemplateComponent>; sections: Sections } => {
  const components: Array<TemplateComponent> = []
  const sections: Sections = {}
  const add = (section: keyof Sections, c: TemplateComponent | undefined) => {
    if (c === undefined) return
    sections[section] = components.length
    components.push(c)
  }
  if (s.category === "authentication") {
    add("body", { type: "BODY", add_security_recommendation: s.securityRecommendation })
    if (s.codeExpiration.trim() !== "") add("footer", { type: "FOOTER", code_expiration_minutes: Number(s.codeExpiration) })
    const apps = s.packageName.trim() === "" ? [] : [{ package_name: s.packageName.trim(), signature_hash: s.signatureHash.trim() }]
    add("buttons", {
      type: "BUTTONS",
      buttons: [{ type: "OTP", otp_type: s.otpType, ...(s.otpText === "" ? {} : { text: s.otpText }), ...(apps.length > 0 ? { supported_apps: apps } : {}) }]
    })
    return { components, sections }
  }
  const named = s.parameterFormat === "NAMED"
  if (!s.carousel) add("header", headerComponent(s.header))
  add("body", bodyComponent(s.body, s.examples, named))
  if (!s.carousel && s.footer !== "") add("footer", { type: "FOOTER", text: s.footer })
  if (!s.carousel && s.buttons.length > 0) add("buttons", { type: "BUTTONS", buttons: s.buttons.map(button) })
  if (s.carousel) {
    add("carousel", {
      type: "CAROUSEL",
      cards: s.cards.map((card) => ({
        components: [
          headerComponent(card.header),
          bodyComponent(card.body, card.examples, named),
          card.buttons.length > 0 ? { type: "BUTTONS" as const, buttons: card.buttons.map(button) } : undefined
        ].filter((c) => c !== undefined) as Array<CardComponent>
      }))
    })
  }
  return { components, sections }
}

/** Where a card's parts land among its components. */
export const cardSections = (card: CardState) => {
  const header = card.header.format === "NONE" ? undefined : 0
  const body = header === undefined ? 0 : 1
  return { header, body, buttons: card.buttons.length > 0 ? body + 1 : undefined }
}
