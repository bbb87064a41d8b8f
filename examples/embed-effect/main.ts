import { Effect } from "effect"
import { main } from "./render.ts"

const rendered = await Effect.runPromise(main)
console.log(JSON.stringify(rendered.data))
