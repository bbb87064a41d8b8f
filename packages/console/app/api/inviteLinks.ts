/**
 * An invitation's link (also the owner's first-start link): what it invites to, and accepting it by setting a
 * password. Both take no key: the link's token is the credential. Accepting by single sign-on is a browser
 * navigation to the provider's start URL with `?invite=`.
 */
import { get, send } from "./client.ts"
import type { Answer } from "./contract.ts"

export type InvitePreview = Answer<"inviteLinks", "preview">

export const previewInvite = (token: string) => get<"inviteLinks", "preview">("/auth/invite", { token })

export const acceptInvite = (token: string, password: string, name: string) =>
  send<"inviteLinks", "accept">("POST", "/auth/invite", { token, password, ...(name === "" ? {} : { name }) })
