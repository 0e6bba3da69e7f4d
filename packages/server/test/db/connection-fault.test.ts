import { SqlError } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Runtime } from "effect"
import { connectionFaultMessage, hasConnectionFault, isConnectionFault } from "../../src/db/connection-fault.js"

/** A driver error as pg reports it: a message and, when there is one, a SQLSTATE or node's socket code. */
const driver = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code })
const statement = (cause: unknown) => new SqlError.SqlError({ cause, message: "Failed to execute statement" })

describe("isConnectionFault", () => {
  it.each([
    ["a connection reset mid-statement", true, statement(driver("read ECONNRESET", "ECONNRESET"))],
    ["a connection refused", true, statement(driver("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"))],
    ["a write to a closed socket", true, statement(driver("write EPIPE", "EPIPE"))],
    ["a socket timeout", true, statement(driver("connect ETIMEDOUT 10.0.0.1:5432", "ETIMEDOUT"))],
    ["pg's end of a connection it did not close", true, statement(driver("Connection terminated unexpectedly"))],
    ["pg's connect timeout", true, statement(driver("timeout exceeded when trying to connect"))],
    ["a client that lost its connection", true, statement(driver("Client has encountered a connection error and is not queryable"))],
    ["the server shutting down (57P01)", true, statement(driver("terminating connection due to administrator command", "57P01"))],
    ["the server crashed (57P02)", true, statement(driver("terminating connection due to crash of another server process", "57P02"))],
    ["the server starting up (57P03)", true, statement(driver("the database system is starting up", "57P03"))],
    ["too many connections (53300)", true, statement(driver("sorry, too many clients already", "53300"))],
    ["a connection exception (08006)", true, statement(driver("connection failure", "08006"))],
    ["sql-pg's acquire failure over a lost connection", true, new SqlError.SqlError({ cause: driver("Connection terminated unexpectedly"), message: "Failed to acquire connection" })],
    ["a SqlError over a SqlError over a reset", true, statement(statement(driver("read ECONNRESET", "ECONNRESET")))],
    ["a wrapping error over a lost connection", true, new Error("send failed", { cause: statement(driver("Connection terminated unexpectedly")) })],
    ["a fiber failure over a lost connection", true, Runtime.makeFiberFailure(Cause.die(statement(driver("read ECONNRESET", "ECONNRESET"))))],
    ["a unique violation (23505)", false, statement(driver("duplicate key value violates unique constraint", "23505"))],
    ["an undefined table (42P01)", false, statement(driver("relation \"messages\" does not exist", "42P01"))],
    ["invalid input (22P02)", false, statement(driver("invalid input syntax for type json", "22P02"))],
    ["a cancelled statement (57014)", false, statement(driver("canceling statement due to statement timeout", "57014"))],
    ["a wrong password (28P01)", false, statement(driver("password authentication failed for user \"postgres\"", "28P01"))],
    ["a programming error under the driver", false, statement(new TypeError("Cannot read properties of undefined"))],
    ["a SqlError without a cause", false, new SqlError.SqlError({ message: "no cause" })],
    ["a socket error that is not a statement's (an upstream call)", false, driver("read ECONNRESET", "ECONNRESET")],
    ["a plain error", false, new Error("Connection terminated unexpectedly")],
    ["not an error", false, "ECONNRESET"]
  ])("%s is a connection fault: %s", (_name, expected, error) => {
    expect(isConnectionFault(error)).toBe(expected)
    expect(hasConnectionFault(Cause.die(error))).toBe(expected)
    expect(hasConnectionFault(Cause.fail(error))).toBe(expected)
  })

  it("a cause with a lost connection among other failures has one, and names it in the driver's words", () => {
    const cause = Cause.parallel(
      Cause.die(new Error("unrelated")),
      Cause.fail(new SqlError.SqlError({ cause: driver("Connection terminated unexpectedly"), message: "Connection error" }))
    )
    expect(hasConnectionFault(cause)).toBe(true)
    expect(connectionFaultMessage(cause)).toBe("Connection terminated unexpectedly")
    expect(connectionFaultMessage(Cause.die(new Error("unrelated")))).toBeUndefined()
  })
})
