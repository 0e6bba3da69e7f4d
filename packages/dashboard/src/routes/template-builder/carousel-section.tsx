import type { ApiError } from "../../api/api-error"
import { type CardState, cardSections, newCard } from "./builder-model"
import { BodySection } from "./body-section"
import { ButtonsSection } from "./buttons-section"
import { issuesUnder } from "./field-issues"
import { HeaderSection } from "./header-section"
import { SectionIssues } from "./inputs"

/** CAROUSEL cards (2 to 10), each with its media header, body and buttons. */
export const CarouselSection = ({ cards, onChange, error, at, channelId, named }: {
  cards: ReadonlyArray<CardState>
  onChange: (cards: ReadonlyArray<CardState>) => void
  error: ApiError | undefined
  /** The CAROUSEL component's path in a 422. */
  at: string | undefined
  channelId: number | undefined
  named: boolean
}) => {
  const set = (i: number, card: CardState) => onChange(cards.map((c, k) => (k === i ? card : c)))
  const cardAt = (i: number, j: number | undefined) => (at === undefined || j === undefined ? "unused" : `${at}.cards.${i}.components.${j}`)
  return (
    <fieldset>
      <legend>Carousel cards (2 to 10)</legend>
      {at !== undefined ? <SectionIssues issues={issuesUnder(error, at).filter((i) => !/\.cards\.\d+\.components\.\d+\./.test(i.field))} /> : null}
      <ol className="builder-rows">
        {cards.map((card, i) => {
          const parts = cardSections(card)
          const n = i + 1
          return (
            <li key={card.key} className="builder-card">
              <h3>Card {n}</h3>
              <HeaderSection
                header={card.header}
                onChange={(header) => set(i, { ...card, header })}
                channelId={channelId}
                error={error}
                at={cardAt(i, parts.header)}
                formats={["IMAGE", "VIDEO"]}
                legend={`Card ${n} header`}
              />
              <BodySection
                text={card.body}
                examples={card.examples}
                onChange={(body, examples) => set(i, { ...card, body, examples })}
                error={error}
                at={cardAt(i, parts.body)}
                label={`Card ${n} body`}
                named={named}
              />
              <ButtonsSection
                buttons={card.buttons}
                onChange={(buttons) => set(i, { ...card, buttons })}
                error={error}
                at={parts.buttons === undefined ? undefined : cardAt(i, parts.buttons)}
                kinds={["QUICK_REPLY", "URL", "PHONE_NUMBER"]}
                legend={`Card ${n} buttons`}
                name={`Card ${n} button`}
              />
              <button type="button" onClick={() => onChange(cards.filter((_, k) => k !== i))} aria-label={`Remove card ${n}`}>Remove card</button>
            </li>
          )
        })}
      </ol>
      <button type="button" onClick={() => onChange([...cards, newCard()])} disabled={cards.length >= 10}>Add a card</button>
    </fieldset>
  )
}
