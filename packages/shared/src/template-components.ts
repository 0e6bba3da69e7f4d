import { Schema } from "effect"
import { type Issue, NonEmptyString, optional } from "./common.js"
import {
  CAROUSEL_MAX_CARDS,
  CAROUSEL_MIN_CARDS,
  CODE_EXPIRATION_MINUTES_MAX,
  CODE_EXPIRATION_MINUTES_MIN
} from "./limits.js"

export const TemplateCategory = Schema.Literal("utility", "marketing", "authentication").annotations({
  identifier: "TemplateCategory"
})
export type TemplateCategory = typeof TemplateCategory.Type

export const ParameterFormat = Schema.Literal("NAMED", "POSITIONAL").annotations({ identifier: "ParameterFormat" })
export type ParameterFormat = typeof ParameterFormat.Type

export const HeaderFormat = Schema.Literal("TEXT", "IMAGE", "VIDEO", "DOCUMENT", "LOCATION")
export type HeaderFormat = typeof HeaderFormat.Type

// HEADER ----------------------------------------------------------------------------

export const HeaderExample = Schema.Struct({
  header_text: optional(Schema.Array(Schema.String)),
  header_handle: optional(Schema.Array(Schema.String))
}).pipe(
  Schema.filter((e) =>
    e.header_text !== undefined && e.header_handle !== undefined
      ? { path: ["header_handle"], message: "header_text and header_handle are mutually exclusive" }
      : undefined
  )
)

const isMediaFormat = (f: HeaderFormat) => f === "IMAGE" || f === "VIDEO" || f === "DOCUMENT"

export const HeaderComponent = Schema.Struct({
  type: Schema.Literal("HEADER"),
  format: HeaderFormat,
  text: optional(Schema.String),
  example: optional(HeaderExample)
}).pipe(
  Schema.filter((h): Issue | undefined => {
    if (h.format === "TEXT") {
      if (h.text === undefined) return { path: ["text"], message: "text is required for a TEXT header" }
      if (h.example?.header_handle !== undefined) {
        return { path: ["example", "header_handle"], message: "header_handle is only for IMAGE, VIDEO and DOCUMENT headers" }
      }
      return undefined
    }
    if (isMediaFormat(h.format)) {
      if (h.text !== undefined) return { path: ["text"], message: "text is only for TEXT headers" }
      const handle = h.example?.header_handle
      if (handle === undefined) {
        return {
          path: ["example", "header_handle"],
          message: `example.header_handle (one upload handle) is required for ${h.format} headers`
        }
      }
      if (handle.length !== 1) {
        return { path: ["example", "header_handle"], message: "header_handle must be a list of exactly one handle" }
      }
      return undefined
    }
    if (h.text !== undefined) return { path: ["text"], message: "a LOCATION header carries no text" }
    if (h.example !== undefined) return { path: ["example"], message: "a LOCATION header carries no example" }
    return undefined
  }),
  Schema.annotations({ identifier: "HeaderComponent" })
)
export type HeaderComponent = typeof HeaderComponent.Type

// BODY ------------------------------------------------------------------------------

/** Named placeholder example, Meta's `body_text_named_params` item. */
export const NamedParamExample = Schema.Struct({ param_name: NonEmptyString, example: Schema.String })

export const BodyExample = Schema.Struct({
  body_text: optional(
    Schema.Array(Schema.Array(Schema.String)).pipe(
      Schema.itemsCount(1, { message: () => "body_text must be a list containing one list of strings" })
    )
  ),
  body_text_named_params: optional(Schema.NonEmptyArray(NamedParamExample))
}).pipe(
  Schema.filter((e): Issue | undefined => {
    if (e.body_text !== undefined && e.body_text_named_params !== undefined) {
      return { path: ["body_text_named_params"], message: "body_text and body_text_named_params are mutually exclusive" }
    }
    if (e.body_text === undefined && e.body_text_named_params === undefined) {
      return { path: ["body_text"], message: "an example needs body_text or body_text_named_params" }
    }
    return undefined
  })
)

export const BodyComponent = Schema.Struct({
  type: Schema.Literal("BODY"),
  text: optional(Schema.String),
  example: optional(BodyExample),
  add_security_recommendation: optional(Schema.Boolean)
}).annotations({ identifier: "BodyComponent" })
export type BodyComponent = typeof BodyComponent.Type

// FOOTER ----------------------------------------------------------------------------

export const FooterComponent = Schema.Struct({
  type: Schema.Literal("FOOTER"),
  text: optional(Schema.String),
  code_expiration_minutes: optional(
    Schema.Int.pipe(
      Schema.between(CODE_EXPIRATION_MINUTES_MIN, CODE_EXPIRATION_MINUTES_MAX, {
        message: () => `must be an integer between ${CODE_EXPIRATION_MINUTES_MIN} and ${CODE_EXPIRATION_MINUTES_MAX}`
      })
    )
  )
}).pipe(
  Schema.filter((f): Issue | undefined => {
    if (f.text !== undefined && f.code_expiration_minutes !== undefined) {
      return { path: ["code_expiration_minutes"], message: "a FOOTER carries text or code_expiration_minutes, not both" }
    }
    if (f.text === undefined && f.code_expiration_minutes === undefined) {
      return { path: ["text"], message: "a FOOTER carries text or code_expiration_minutes" }
    }
    return undefined
  }),
  Schema.annotations({ identifier: "FooterComponent" })
)
export type FooterComponent = typeof FooterComponent.Type

// BUTTONS ---------------------------------------------------------------------------

const PLACEHOLDER = /\{\{\s*[^}\s]+\s*\}\}/

export const QuickReplyButton = Schema.Struct({ type: Schema.Literal("QUICK_REPLY"), text: Schema.String })

/** Static URL, or dynamic with a `{{1}}` placeholder plus fully resolved example URLs. */
export const UrlButton = Schema.Struct({
  type: Schema.Literal("URL"),
  text: Schema.String,
  url: NonEmptyString,
  example: optional(Schema.Array(Schema.String))
}).pipe(
  Schema.filter((b): Issue | undefined =>
    PLACEHOLDER.test(b.url) && (b.example === undefined || b.example.length === 0)
      ? { path: ["example"], message: "a dynamic URL with a {{1}} placeholder requires example: fully resolved example URLs" }
      : undefined
  )
)

export const PhoneNumberButton = Schema.Struct({
  type: Schema.Literal("PHONE_NUMBER"),
  text: Schema.String,
  phone_number: NonEmptyString
})

export const CopyCodeButton = Schema.Struct({
  type: Schema.Literal("COPY_CODE"),
  example: Schema.String,
  text: optional(Schema.String)
})

export const SupportedApp = Schema.Struct({ package_name: NonEmptyString, signature_hash: NonEmptyString })

export const OtpType = Schema.Literal("COPY_CODE", "ONE_TAP", "ZERO_TAP")

/** Authentication-only button; package_name, signature_hash and autofill_text are passed through. */
export const OtpButton = Schema.Struct({
  type: Schema.Literal("OTP"),
  otp_type: OtpType,
  text: optional(Schema.String),
  supported_apps: optional(Schema.Array(SupportedApp)),
  package_name: optional(Schema.String),
  signature_hash: optional(Schema.String),
  autofill_text: optional(Schema.String),
  zero_tap_terms_accepted: optional(Schema.Boolean)
})

/** Catalog button: passthrough, any further upstream field is kept. */
export const CatalogButton = Schema.Struct(
  { type: Schema.Literal("CATALOG"), text: optional(Schema.String) },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

export const TemplateButton = Schema.Union(
  QuickReplyButton,
  UrlButton,
  PhoneNumberButton,
  CopyCodeButton,
  OtpButton,
  CatalogButton
).annotations({ identifier: "TemplateButton" })
export type TemplateButton = typeof TemplateButton.Type

export const ButtonsComponent = Schema.Struct({
  type: Schema.Literal("BUTTONS"),
  buttons: Schema.Array(TemplateButton).pipe(Schema.minItems(1, { message: () => "must hold at least one button" }))
}).annotations({ identifier: "ButtonsComponent" })
export type ButtonsComponent = typeof ButtonsComponent.Type

// Scope rules -----------------------------------------------------------------------

type Typed = { readonly type: string }

/** Count rules of one scope (the template, or one carousel card); paths are relative to the list. */
const scopeIssues = (components: ReadonlyArray<Typed>, scope: "template" | "card"): Array<Issue> => {
  const issues: Array<Issue> = []
  const seen = new Map<string, number>()
  components.forEach((c, i) => {
    const n = (seen.get(c.type) ?? 0) + 1
    seen.set(c.type, n)
    if (n > 1 && ["HEADER", "BODY", "FOOTER", "BUTTONS", "CAROUSEL"].includes(c.type)) {
      issues.push({ path: [i, "type"], message: `at most one ${c.type} component is allowed per ${scope}` })
    }
  })
  if (!seen.has("BODY")) issues.push({ path: [], message: `exactly one BODY component is required per ${scope}` })
  return issues
}

// CAROUSEL --------------------------------------------------------------------------

export const CardComponent = Schema.Union(HeaderComponent, BodyComponent, ButtonsComponent)
export type CardComponent = typeof CardComponent.Type

export const CarouselCard = Schema.Struct({
  components: Schema.Array(CardComponent).pipe(Schema.filter((cs) => scopeIssues(cs, "card")))
}).annotations({ identifier: "CarouselCard" })

const carouselCards = Schema.Array(CarouselCard).pipe(
    Schema.minItems(CAROUSEL_MIN_CARDS, {
      message: () => `a carousel has ${CAROUSEL_MIN_CARDS} to ${CAROUSEL_MAX_CARDS} cards`
    }),
    Schema.maxItems(CAROUSEL_MAX_CARDS, {
      message: () => `a carousel has ${CAROUSEL_MIN_CARDS} to ${CAROUSEL_MAX_CARDS} cards`
    })
  )

export const CarouselComponent = Schema.Struct({
  type: Schema.Literal("CAROUSEL"),
  cards: carouselCards
}).annotations({ identifier: "CarouselComponent" })
export type CarouselComponent = typeof CarouselComponent.Type

/** A card component the platform does not model (response side only). */
export const UnmodelledComponent = Schema.Struct(
  { type: Schema.String },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

/** Response-side carousel: cards may carry components the platform does not model. */
export const CarouselComponentResponse = Schema.Struct({
  type: Schema.Literal("CAROUSEL"),
  cards: Schema.Array(
    Schema.Struct({ components: Schema.Array(Schema.Union(CardComponent, UnmodelledComponent)) })
  )
}).annotations({ identifier: "CarouselComponentResponse" })

export const TemplateComponent = Schema.Union(
  HeaderComponent,
  BodyComponent,
  FooterComponent,
  ButtonsComponent,
  CarouselComponent
).annotations({ identifier: "TemplateComponent" })
export type TemplateComponent = typeof TemplateComponent.Type

export const TemplateComponentResponse = Schema.Union(
  HeaderComponent,
  BodyComponent,
  FooterComponent,
  ButtonsComponent,
  CarouselComponentResponse
).annotations({ identifier: "TemplateComponentResponse" })
export type TemplateComponentResponse = typeof TemplateComponentResponse.Type

/** Request-side component list with the per-scope count rules (one BODY, at most one of the others). */
export const TemplateComponents = Schema.Array(TemplateComponent).pipe(
  Schema.filter((cs) => scopeIssues(cs, "template"))
)

/** Distinct placeholder names (`{{1}}`, `{{first_name}}`) of a BODY text, in order of first appearance. */
const bodyPlaceholders = (text: string | undefined): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const match of (text ?? "").matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)) if (!out.includes(match[1]!)) out.push(match[1]!)
  return out
}

/**
 * Category-dependent rules across components (SPEC §2.2); paths are relative to the
 * component list. Exported for the server, which checks a PATCH against the stored row.
 */
export const templateComponentIssues = (
  components: ReadonlyArray<TemplateComponent>,
  options: { readonly category?: TemplateCategory | undefined; readonly parameter_format?: ParameterFormat | undefined }
): Array<Issue> => {
  const { category, parameter_format } = options
  const auth = category === "authentication"
  const issues: Array<Issue> = []
  const body = (b: BodyComponent, at: ReadonlyArray<PropertyKey>) => {
    if (category !== undefined && !auth && b.text === undefined) {
      issues.push({ path: [...at, "text"], message: `BODY text is required for the ${category} category` })
    }
    if (auth && b.text !== undefined) {
      issues.push({ path: [...at, "text"], message: "BODY text is forbidden for the authentication category" })
    } else if (b.text !== undefined && !/\S/u.test(b.text)) {
      issues.push({ path: [...at, "text"], message: "BODY text must not be empty or only whitespace" })
    }
    if (category !== undefined && !auth && b.add_security_recommendation !== undefined) {
      issues.push({
        path: [...at, "add_security_recommendation"],
        message: "add_security_recommendation is for the authentication category only"
      })
    }
    const placeholders = bodyPlaceholders(b.text)
    const listed = placeholders.map((p) => `{{${p}}}`).join(", ")
    if (b.example === undefined) {
      if (placeholders.length > 0) {
        issues.push({
          path: [...at, "example"],
          message: `the BODY text has ${placeholders.length} placeholder(s) (${listed}): example gives a sample value for each`
        })
      }
    } else if (b.example.body_text !== undefined) {
      const values = b.example.body_text[0] ?? []
      if (values.length !== placeholders.length) {
        issues.push({
          path: [...at, "example", "body_text", 0],
          message: `the BODY text has ${placeholders.length} placeholder(s)${placeholders.length > 0 ? ` (${listed})` : ""}: ` +
            `give one sample value for each, in order (${values.length} given)`
        })
      }
    } else if (b.example.body_text_named_params !== undefined) {
      const names = b.example.body_text_named_params.map((p) => p.param_name)
      const missing = placeholders.filter((p) => !names.includes(p))
      const extra = names.filter((n) => !placeholders.includes(n))
      if (missing.length > 0 || extra.length > 0) {
        issues.push({
          path: [...at, "example", "body_text_named_params"],
          message: [
            missing.length > 0 ? `no sample for ${missing.map((p) => `{{${p}}}`).join(", ")}` : undefined,
            extra.length > 0 ? `no placeholder for ${extra.join(", ")}` : undefined
          ].filter((m) => m !== undefined).join("; ") + ": give one sample per placeholder of the BODY text"
        })
      }
    }
    if (parameter_format === "NAMED" && b.example?.body_text !== undefined) {
      issues.push({ path: [...at, "example", "body_text"], message: "a NAMED template uses body_text_named_params" })
    }
    if (parameter_format === "POSITIONAL" && b.example?.body_text_named_params !== undefined) {
      issues.push({
        path: [...at, "example", "body_text_named_params"],
        message: "a POSITIONAL template uses body_text"
      })
    }
  }
  const buttons = (b: ButtonsComponent, at: ReadonlyArray<PropertyKey>) => {
    b.buttons.forEach((button, k) => {
      if (category !== undefined && !auth && button.type === "OTP") {
        issues.push({ path: [...at, "buttons", k, "type"], message: "OTP buttons are for the authentication category only" })
      }
    })
  }
  components.forEach((c, i) => {
    switch (c.type) {
      case "BODY":
        return body(c, [i])
      case "BUTTONS":
        return buttons(c, [i])
      case "FOOTER":
        if (category !== undefined && !auth && c.code_expiration_minutes !== undefined) {
          issues.push({
            path: [i, "code_expiration_minutes"],
            message: "code_expiration_minutes is for the authentication category only"
          })
        }
        if (auth && c.text !== undefined) {
          issues.push({ path: [i, "text"], message: "an authentication FOOTER carries code_expiration_minutes, not text" })
        }
        return
      case "CAROUSEL":
        return c.cards.forEach((card, k) =>
          card.components.forEach((cc, j) => {
            const at = [i, "cards", k, "components", j]
            if (cc.type === "BODY") body(cc, at)
            if (cc.type === "BUTTONS") buttons(cc, at)
          })
        )
      case "HEADER":
        return
    }
  })
  return issues
}
