/**
 * The person's own second factor (TOTP): its state and whether the organisation requires one, enrolling (the
 * answer carries the otpauth:// URI, its secret, this once), confirming with a code, and turning it off.
 */
import { get, send } from "./client.ts"
import type { Answer, Body } from "./contract.ts"

export type SecondFactorDetails = Answer<"secondFactor", "get">
export type TotpEnrolment = Answer<"secondFactor", "enrol">

export const getSecondFactor = () => get<"secondFactor", "get">("/me/second-factor")
export const enrolTotp = () => send<"secondFactor", "enrol">("POST", "/me/second-factor/totp")
export const confirmTotp = (body: Body<"secondFactor", "confirm">) =>
  send<"secondFactor", "confirm">("POST", "/me/second-factor/totp/confirm", body)
export const disableTotp = (body: Body<"secondFactor", "disable">) =>
  send<"secondFactor", "disable">("POST", "/me/second-factor/totp/disable", body)
