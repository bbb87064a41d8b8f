/**
 * People signed in with a password over HTTP, as a browser on the gateway's own page is: for the tests of sessions
 * and local accounts.
 */
import { expect } from "vitest"
import type { TestServer } from "./TestServer.ts"

export const PASSWORD = "a long enough password"

/** A JSON answer, read as the tests look into it. */
export const json = async (response: Response) => JSON.parse(await response.text())

export interface SignedIn {
  readonly cookie: string
  readonly csrf: string
  readonly sessionId: string
  readonly setCookie: string
}

/** The session a sign-in answer opened (a password's, or a second factor's step): a 200 whose object is one. */
export const sessionOf = async (response: Response): Promise<SignedIn> => {
  const text = await response.text()
  expect(response.status, text).toBe(200)
  const body = JSON.parse(text)
  expect(body.object).toBe("session")
  const setCookie = response.headers.get("set-cookie") ?? ""
  return { cookie: setCookie.split(";")[0] ?? "", csrf: body.csrf_token, sessionId: body.session.id, setCookie }
}

/** Signs in with the password, as a person with no second factor does. */
export const signIn = async (server: TestServer, email: string, password = PASSWORD): Promise<SignedIn> =>
  sessionOf(
    await server.request("/v1/auth/password", {
      method: "POST",
      key: null,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password })
    })
  )

/** A request made with the session, as a browser on the gateway's own page would make it. */
export const withSession = (server: TestServer, session: SignedIn, path: string, init: RequestInit = {}) =>
  server.request(path, {
    ...init,
    key: null,
    headers: {
      cookie: session.cookie,
      "x-csrf-token": session.csrf,
      origin: server.baseUrl,
      "content-type": "application/json",
      ...init.headers
    }
  })

/** A person of the organisation, made with the admin key, with `PASSWORD` as their password; their id. */
export const addUser = async (server: TestServer, email: string, role: "admin" | "member") => {
  const created = await server.send("POST", "/v1/users", { email, name: "Pat Doe", role })
  expect(created.status).toBe(201)
  const { id } = await json(created)
  const password = await server.send("PUT", "/v1/auth/password", { user_id: id, password: PASSWORD })
  expect(password.status, await password.text()).toBe(200)
  return id as string
}
