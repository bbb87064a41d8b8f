/**
 * A real OpenID provider on 127.0.0.1 for the sign-in tests: the `oidc-provider` package with confidential test
 * clients and accounts carrying `email`, `email_verified`, `name` and `groups`. Its interaction (login and
 * consent) is answered at once for the account the test names, so a "browser" (`signInThrough`) can follow the
 * whole authorization code flow with fetch and a cookie jar. In front of it sits a small proxy that can re-sign
 * the next ID token with the provider's own key as already expired, to test the relying party's `exp` check.
 */
import { decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT } from "jose"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import Provider from "oidc-provider"

export interface TestAccount {
  readonly email: string
  readonly email_verified: boolean
  readonly name: string
  readonly groups: ReadonlyArray<string>
}

export interface TestClient {
  readonly client_id: string
  readonly client_secret: string
}

export interface OidcTestProvider {
  readonly issuer: string
  /** The accounts by id (the `sub`): tests change their groups between sign-ins. */
  readonly accounts: Map<string, TestAccount>
  /** The account the next interaction signs in. */
  signInAs: (accountId: string) => void
  /** The next ID token the token endpoint answers is re-signed as expired five minutes ago. */
  expireNextIdToken: () => void
  readonly close: () => Promise<void>
}

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("expected a TCP address")
  return address.port
}

const readBody = async (request: IncomingMessage) => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

export const startOidcProvider = async (
  clients: ReadonlyArray<TestClient>,
  redirectUri: string,
  accounts: Record<string, TestAccount>
): Promise<OidcTestProvider> => {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true })
  const signingJwk = { ...(await exportJWK(privateKey)), kid: "test-signing-key", alg: "RS256", use: "sig" }
  const table = new Map(Object.entries(accounts))
  let current = Object.keys(accounts)[0]!
  let expireNext = false

  const front = createServer()
  const frontPort = await listen(front)
  const issuer = `http://127.0.0.1:${frontPort}`

  const provider = new Provider(issuer, {
    clients: clients.map((client) => ({
      ...client,
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic"
    })),
    jwks: { keys: [signingJwk] },
    cookies: { keys: ["test-cookie-key"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, id: string) => {
      const account = table.get(id)
      return account === undefined ? undefined : {
        accountId: id,
        claims: () => ({ sub: id, ...account, groups: [...account.groups] })
      }
    }
  })
  // Behind the proxy: the issuer's host is the proxy's, which it names in X-Forwarded-Host.
  provider.proxy = true
  const callback = provider.callback()

  const back = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    if (request.url?.startsWith("/interaction/") === true) {
      const details = await provider.interactionDetails(request, response)
      const clientId = String(details.params.client_id)
      const grant = new provider.Grant({ accountId: current, clientId })
      grant.addOIDCScope(String(details.params.scope))
      const grantId = await grant.save()
      await provider.interactionFinished(request, response, { login: { accountId: current }, consent: { grantId } }, {
        mergeWithLastSubmission: false
      })
      return
    }
    callback(request, response)
  })
  const backPort = await listen(back)

  // The proxy: everything goes to the provider as it is, but an ID token can be made stale on its way back.
  front.on("request", async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request)
    const headers = new Headers()
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string") headers.set(name, value)
      else if (Array.isArray(value)) { for (const v of value) headers.append(name, v) }
    }
    headers.set("x-forwarded-host", `127.0.0.1:${frontPort}`)
    headers.set("x-forwarded-proto", "http")
    const answer = await fetch(`http://127.0.0.1:${backPort}${request.url}`, {
      method: request.method,
      headers,
      body: body.length > 0 ? body : undefined,
      redirect: "manual"
    })
    let text = await answer.text()
    if (request.url === "/token" && expireNext && answer.status === 200) {
      expireNext = false
      const tokens = JSON.parse(text)
      const claims = decodeJwt(tokens.id_token)
      const now = Math.floor(Date.now() / 1000)
      tokens.id_token = await new SignJWT({ ...claims, iat: now - 900, exp: now - 300 })
        .setProtectedHeader({ alg: "RS256", kid: signingJwk.kid })
        .sign(await importJWK(signingJwk, "RS256"))
      text = JSON.stringify(tokens)
    }
    const out: Record<string, string | Array<string>> = {}
    answer.headers.forEach((value, name) => {
      if (name !== "set-cookie" && name !== "content-length" && name !== "content-encoding") out[name] = value
    })
    const cookies = answer.headers.getSetCookie()
    if (cookies.length > 0) out["set-cookie"] = cookies
    response.writeHead(answer.status, out)
    response.end(text)
  })

  return {
    issuer,
    accounts: table,
    signInAs: (accountId) => {
      current = accountId
    },
    expireNextIdToken: () => {
      expireNext = true
    },
    close: async () => {
      await new Promise<void>((resolve) => front.close(() => resolve()))
      await new Promise<void>((resolve) => back.close(() => resolve()))
    }
  }
}

/** A browser's cookie jar, enough for one host: name → value. */
export class CookieJar {
  readonly cookies = new Map<string, string>()
  take(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const at = pair!.indexOf("=")
      const name = pair!.slice(0, at).trim()
      const value = pair!.slice(at + 1).trim()
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ")
  }
}

/**
 * Follows redirects at the provider from `url` until it sends the browser to `redirectUri`; answers the query
 * of that callback (`code`, `state`, `iss`).
 */
export const followProvider = async (url: string, redirectUri: string, jar = new CookieJar()): Promise<string> => {
  let next = url
  for (let hops = 0; hops < 10; hops++) {
    const response = await fetch(next, { redirect: "manual", headers: { cookie: jar.header() } })
    jar.take(response)
    const location = response.headers.get("location")
    if (location === null) {
      throw new Error(`the provider answered ${response.status} at ${next}: ${await response.text()}`)
    }
    await response.body?.cancel()
    const target = new URL(location, next)
    if (target.href.startsWith(redirectUri)) return target.search
    next = target.href
  }
  throw new Error("too many redirects at the provider")
}
