// The practical ceiling: node:http with nothing in between.
import { createServer } from "node:http"
import { renderBody } from "./shared.mjs"

const ROUTE = /^\/v1\/prompts\/([^/]+)\/render$/
const server = createServer((req, res) => {
  if (req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json" })
    return res.end("{\"status\":\"ok\"}")
  }
  const match = ROUTE.exec(req.url ?? "")
  const chunks = []
  req.on("data", (c) => chunks.push(c))
  req.on("end", () => {
    let body
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      res.writeHead(400)
      return res.end()
    }
    const result = match === null ? undefined : renderBody(match[1], body)
    res.writeHead(result === undefined ? 404 : 200, { "content-type": "application/json" })
    res.end(JSON.stringify(result ?? { success: false }))
  })
})
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.error("Listening"))
process.on("SIGTERM", () => server.close(() => process.exit(0)))
