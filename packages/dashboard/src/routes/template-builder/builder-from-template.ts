import type { Template } from "../../api/types"
import { type BuilderState, type ButtonKind, type ButtonRow, type CardState, emptyBuilder, type HeaderState, newButton, nextKey, noHeader } from "./builder-model"

/*
 * A stored template read back into the builder's form, for the edit page. What the form
 * cannot show (a CATALOG button, an unmodelled card component) gives undefined, and the
 * edit page then starts in the JSON mode with the components as stored.
 */

type Loose = Record<string, unknown> & { readonly type?: string }
const str = (v: unknown) => (typeof v === "string" ? v : "")

class Unmodelled extends Error {}

const headerOf = (c: Loose): HeaderState => {
  const example = (c.example ?? {}) as { header_handle?: ReadonlyArray<string> }
  const format = str(c.format) as HeaderState["format"]
  if (!["TEXT", "IMAGE", "VIDEO", "DOCUMENT", "LOCATION"].includes(format)) throw new Unmodelled()
  return { format, text: str(c.text), handle: example.header_handle?.[0] ?? "" }
}

const examplesOf = (c: Loose): Record<string, string> => {
  const example = (c.example ?? {}) as { body_text?: ReadonlyArray<ReadonlyArray<string>>; body_text_named_params?: ReadonlyArray<{ param_name: string; example: string }> }
  const out: Record<string, string> = {}
  example.body_text?.[0]?.forEach((v, i) => void (out[String(i + 1)] = v))
  example.body_text_named_params?.forEach((p) => void (out[p.param_name] = p.example))
  return out
}

const buttonsOf = (c: Loose): Array<ButtonRow> =>
  ((c.buttons ?? []) as ReadonlyArray<Loose>).map((b) => {
    const kind = str(b.type) as ButtonKind
    const row = newButton(kind)
    switch (kind) {
      case "QUICK_REPLY":
        return { ...row, text: str(b.text) }
      case "URL":
        return { ...row, text: str(b.text), value: str(b.url), example: str((b.example as ReadonlyArray<string> | undefined)?.[0]) }
      case "PHONE_NUMBER":
        return { ...row, text: str(b.text), value: str(b.phone_number) }
      case "COPY_CODE":
        return { ...row, text: str(b.text), value: str(b.example) }
      default:
        throw new Unmodelled()
    }
  })

const fromComponents = (t: Template, components: ReadonlyArray<Loose>): BuilderState => {
  let state: BuilderState = { ...emptyBuilder(t.category), parameterFormat: t.parameter_format === "NAMED" ? "NAMED" : "POSITIONAL" }
  for (const c of components) {
    if (t.category === "authentication") {
      if (c.type === "BODY") state = { ...state, securityRecommendation: c.add_security_recommendation === true }
      else if (c.type === "FOOTER") state = { ...state, codeExpiration: c.code_expiration_minutes === undefined ? "" : String(c.code_expiration_minutes) }
      else if (c.type === "BUTTONS") {
        const otp = ((c.buttons ?? []) as ReadonlyArray<Loose>)[0]
        if (otp?.type !== "OTP") throw new Unmodelled()
        const app = ((otp.supported_apps ?? []) as ReadonlyArray<Loose>)[0]
        state = { ...state, otpType: str(otp.otp_type) as BuilderState["otpType"], otpText: str(otp.text), packageName: str(app?.package_name), signatureHash: str(app?.signature_hash) }
      } else throw new Unmodelled()
      continue
    }
    switch (c.type) {
      case "HEADER":
        state = { ...state, header: headerOf(c) }
        break
      case "BODY":
        state = { ...state, body: str(c.text), examples: examplesOf(c) }
        break
      case "FOOTER":
        state = { ...state, footer: str(c.text) }
        break
      case "BUTTONS":
        state = { ...state, buttons: buttonsOf(c) }
        break
      case "CAROUSEL":
        state = {
          ...state,
          carousel: true,
          cards: ((c.cards ?? []) as ReadonlyArray<{ components: ReadonlyArray<Loose> }>).map((card): CardState => {
            let built: CardState = { key: nextKey(), header: noHeader, body: "", examples: {}, buttons: [] }
            for (const cc of card.components) {
              if (cc.type === "HEADER") built = { ...built, header: headerOf(cc) }
              else if (cc.type === "BODY") built = { ...built, body: str(cc.text), examples: examplesOf(cc) }
              else if (cc.type === "BUTTONS") built = { ...built, buttons: buttonsOf(cc) }
              else throw new Unmodelled()
            }
            return built
          })
        }
        break
      default:
        throw new Unmodelled()
    }
  }
  return state
}

export const builderOf = (t: Template): BuilderState | undefined => {
  try {
    if (t.components === null || t.components === undefined) {
      const examples: Record<string, string> = {}
      t.variables.forEach((v, i) => void (examples[String(i + 1)] = v))
      return { ...emptyBuilder(t.category), body: t.body_text, examples }
    }
    return fromComponents(t, t.components as ReadonlyArray<Loose>)
  } catch (e) {
    if (e instanceof Unmodelled) return undefined
    throw e
  }
}
