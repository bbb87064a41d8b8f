/** Serves the example app on http://127.0.0.1:3000 with a memory engine, and prints the bootstrap key. */
import { createApp } from "./app.ts"

const { app, gateway } = await createApp({ store: "memory" })
const { api_key } = await gateway.bootstrap({ organisationName: "Acme", ownerEmail: "owner@acme.test" })
app.listen(3000, "127.0.0.1", () => {
  console.log(`http://127.0.0.1:3000/gateway/docs — API key ${api_key}`)
})
