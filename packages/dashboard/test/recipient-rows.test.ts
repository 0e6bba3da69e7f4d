import Papa from "papaparse"
import { describe, expect, it } from "vitest"
import { csvRecipients, pastedRecipients } from "../src/routes/broadcast/recipient-rows.js"

const positional = { names: ["1", "2"], named: false }
const named = { names: ["first_name", "city"], named: true }
const csv = (text: string) => Papa.parse<Array<string>>(text, { skipEmptyLines: false }).data

const body = (...texts: ReadonlyArray<string>) => [{ type: "body", parameters: texts.map((text) => ({ type: "text", text })) }]

describe("recipients read from pasted lines and CSV rows", () => {
  it("pasted: a number a line, then its variables by comma or tab; blank lines skipped, line numbers kept", () => {
    expect(pastedRecipients("+1 555 000 0001, Ana, Lima\n\n15550000002\n15550000003\tBo\t\n", positional)).toEqual([
      { row: 1, to: "+1 555 000 0001", components: body("Ana", "Lima") },
      { row: 3, to: "15550000002" },
      { row: 4, to: "15550000003", components: body("Bo") }
    ])
  })

  it("CSV with a header: the phone column wherever it is, variables by placeholder name, quoted commas kept", () => {
    const rows = csv("city,first_name,phone\n\"Lima, Peru\",Ana,15550000001\nQuito,,15550000002\n,,\n")
    expect(csvRecipients(rows, named)).toEqual([
      { row: 2, to: "15550000001", components: [{ type: "body", parameters: [
        { type: "text", text: "Ana", parameter_name: "first_name" }, { type: "text", text: "Lima, Peru", parameter_name: "city" }
      ] }] },
      // An empty variable in the middle is sent as it is: the API refuses the row and says why.
      { row: 3, to: "15550000002", components: [{ type: "body", parameters: [
        { type: "text", text: "", parameter_name: "first_name" }, { type: "text", text: "Quito", parameter_name: "city" }
      ] }] }
    ])
  })

  it("CSV without a header: the number first, the other columns the variables in order; a row without a number kept for the API to refuse", () => {
    expect(csvRecipients(csv("15550000001,Ana\n,Zed\n15550000003\n"), positional)).toEqual([
      { row: 1, to: "15550000001", components: body("Ana") },
      { row: 2, to: "", components: body("Zed") },
      { row: 3, to: "15550000003" }
    ])
  })
})
