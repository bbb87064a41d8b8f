/** The example's test: the program renders the saved prompt with the given variable, on plain Node. */
import { Effect } from "effect"
import assert from "node:assert/strict"
import { main } from "./render.ts"

const rendered = await Effect.runPromise(main)
assert.equal(rendered.data["model"], "gpt-4o-mini")
assert.equal(rendered.data["prompt"], "Hello Ada!")
assert.deepEqual(rendered.missingVariables, [])
console.log("embed-effect: rendered in-process on the memory store")
