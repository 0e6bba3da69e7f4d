import type { ApiError } from "../../api/api-error"
import { Field, SelectField } from "../../components/field"
import { AuthSection } from "./auth-section"
import { BodySection } from "./body-section"
import { type BuilderState, newCard, toComponents } from "./builder-model"
import { ButtonsSection } from "./buttons-section"
import { CarouselSection } from "./carousel-section"
import { errorAt } from "./field-issues"
import { HeaderSection } from "./header-section"

const at = (index: number | undefined) => (index === undefined ? "unused" : `components.${index}`)

/** The structured component builder: header, body with samples, footer, buttons, or carousel cards; the authentication shape. */
export const BuilderForm = ({ state, onChange, error, channelId }: {
  state: BuilderState
  onChange: (state: BuilderState) => void
  error: ApiError | undefined
  channelId: number | undefined
}) => {
  const set = (changes: Partial<BuilderState>) => onChange({ ...state, ...changes })
  const { sections } = toComponents(state)
  if (state.category === "authentication") return <AuthSection state={state} onChange={set} error={error} sections={sections} />
  const named = state.parameterFormat === "NAMED"
  return (
    <>
      <div className="row">
        <SelectField label="Placeholders" value={state.parameterFormat} onChange={(e) => set({ parameterFormat: e.currentTarget.value as BuilderState["parameterFormat"] })}>
          <option value="POSITIONAL">Positional ({"{{1}}"}, {"{{2}}"})</option>
          <option value="NAMED">Named ({"{{first_name}}"})</option>
        </SelectField>
        <SelectField label="Layout" value={state.carousel ? "carousel" : "single"} onChange={(e) => set(e.currentTarget.value === "carousel" ? { carousel: true, cards: state.cards.length >= 2 ? state.cards : [newCard(), newCard()] } : { carousel: false })}>
          <option value="single">One message (header, body, footer, buttons)</option>
          <option value="carousel">Carousel (a body and 2 to 10 cards)</option>
        </SelectField>
      </div>
      {!state.carousel
        ? <HeaderSection header={state.header} onChange={(header) => set({ header })} channelId={channelId} error={error} at={at(sections.header)} formats={["NONE", "TEXT", "IMAGE", "VIDEO", "DOCUMENT", "LOCATION"]} legend="Header" />
        : null}
      <fieldset>
        <legend>Body</legend>
        <BodySection text={state.body} examples={state.examples} onChange={(body, examples) => set({ body, examples })} error={error} at={at(sections.body)} label="Body text" named={named} />
      </fieldset>
      {!state.carousel ? (
        <>
          <Field label="Footer (optional)" name={`${at(sections.footer)}.text`} value={state.footer} maxLength={60} error={errorAt(error, `${at(sections.footer)}.text`)} onChange={(e) => set({ footer: e.currentTarget.value })} />
          <ButtonsSection buttons={state.buttons} onChange={(buttons) => set({ buttons })} error={error} at={sections.buttons === undefined ? undefined : at(sections.buttons)} kinds={["QUICK_REPLY", "URL", "PHONE_NUMBER", "COPY_CODE"]} legend="Buttons" />
        </>
      ) : <CarouselSection cards={state.cards} onChange={(cards) => set({ cards })} error={error} at={sections.carousel === undefined ? undefined : at(sections.carousel)} channelId={channelId} named={named} />}
    </>
  )
}
