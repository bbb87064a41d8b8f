/**
 * People signed in: who is calling (`GET /v1/me`), password sign-in, the identity providers the sign-in page
 * offers, a person's sessions, and signing out (here, one session, or everywhere).
 */
import type { SignInOptions } from "@gateway-control/adapters-http/api"
import type { Schema } from "effect"
import { get, type Item, segment, send } from "./client.ts"
import type { Answer, Body } from "./contract.ts"

export type Me = Answer<"sessions", "me">
export type Person = NonNullable<Me["user"]>
export type SessionDetails = Item<Answer<"sessions", "list">>
export type SignedIn = Answer<"signIn", "password">
/** An enabled identity provider, as the sign-in page is told of it. */
export type SignInOption = Schema.Codec.Encoded<typeof SignInOptions>["data"][number]

export const me = () => get<"sessions", "me">("/me")

/**
 * Signs in with a local account; the answer sets the session cookie and carries the CSRF token, or, for a person
 * with a second factor, answers a challenge to send back with a code (`secondFactorSignIn`).
 */
export const passwordSignIn = (body: Body<"signIn", "password">) =>
  send<"signIn", "password">("POST", "/auth/password", body)

/** The second step of a password sign-in: the challenge and the authenticator app's code. */
export const secondFactorSignIn = (body: Body<"signIn", "secondFactor">) =>
  send<"signIn", "secondFactor">("POST", "/auth/second-factor", body)

/**
 * The enabled identity providers, each with the URL a browser starts at. Public, and served by a browser route
 * beside HttpApi: its answer is typed by the contract's `SignInOptions`, not by an endpoint.
 */
export const signInOptions = async (): Promise<ReadonlyArray<SignInOption>> => {
  const response = await fetch("/v1/auth/providers", { credentials: "omit", cache: "no-store" })
  if (!response.ok) return []
  const body = (await response.json()) as Schema.Codec.Encoded<typeof SignInOptions>
  return body.data
}

export const listSessions = () => get<"sessions", "list">("/sessions")
export const revokeSession = (id: string) => send<"sessions", "revoke">("DELETE", `/sessions/${segment(id)}`)
export const signOutEverywhere = () => send<"sessions", "signOutEverywhere">("DELETE", "/sessions")
/** Ends this session and clears its cookie. */
export const endSession = () => send<"sessions", "signOut">("POST", "/auth/sign-out")
