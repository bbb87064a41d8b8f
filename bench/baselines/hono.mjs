// What a team might write instead: Hono on @hono/node-server.
import { serve } from "@hono/node-server"
import { Hono } from "hono"
import { renderBody } from "./shared.mjs"

const app = new Hono()
app.get("/ping", (c) => c.json({ status: "ok" }))
app.post("/v1/prompts/:id/render", async (c) => {
  const result = renderBody(c.req.param("id"), await c.req.json())
  return result === undefined ? c.json({ success: false }, 404) : c.json(result)
})
const server = serve(
  { fetch: app.fetch, port: Number(process.env.PORT), hostname: "127.0.0.1" },
  () => console.error("Listening")
)
process.on("SIGTERM", () => server.close(() => process.exit(0)))
