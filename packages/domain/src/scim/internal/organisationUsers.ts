/** What SCIM's users and groups share: the organisation they address, and its users, read whole. */
import { Effect } from "effect"
import type { User } from "../../access/AccessModel.ts"
import type { UserStore } from "../../access/AccessStores.ts"
import { Target } from "../../access/Policy.ts"
import type { Principal } from "../../access/Principal.ts"

/** The caller's organisation, as the target and resource of the calls that list or create its users and groups. */
export const organisationOf = (principal: Principal) => ({
  target: Target.organisation(principal.organisationId),
  resource: { type: "organisation", id: principal.organisationId }
})

/** Every user of the organisation, read a thousand at a time (SCIM filters and pages them itself). */
export const everyUser = Effect.fnUntraced(function*(
  users: Pick<UserStore["Service"], "list">,
  organisationId: string
) {
  const found: Array<User> = []
  const limit = 1000
  for (let offset = 0;; offset += limit) {
    const page = yield* users.list(organisationId, { limit, offset })
    found.push(...page.items)
    if (offset + limit >= page.total) return found
  }
})
