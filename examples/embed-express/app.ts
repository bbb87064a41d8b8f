/**
 * An existing Express app that mounts gateway-control's whole API (with its OpenAPI document and docs) under
 * /gateway. The engine reads its own bodies, so it is mounted before any body parser.
 */
import { createGatewayControl, type GatewayControlOptions } from "@gateway-control/server"
import express from "express"

// readme:start embed-express
export const createApp = async (options: GatewayControlOptions) => {
  const gateway = await createGatewayControl({ ...options, basePath: "/gateway" })
  const app = express()
  app.use(gateway.nodeHandler) // answers under /gateway, hands everything else to the next handler
  app.use(express.json())
  app.get("/hello", (_request, response) => {
    response.json({ hello: "from the host app" })
  })
  return { app, gateway }
}
// readme:end
