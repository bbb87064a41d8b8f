/**
 * Organisations' sign-in settings, TOTP second factors and sign-in challenges on `effect/sql`. A factor's secret is
 * stored as the ciphertext the domain gives; a challenge by its token's hash. A code's time step is taken by one
 * conditional UPDATE, so of racing uses of one code (in any process) one wins; a challenge by one DELETE.
 */
import { LocalAccountStore, SignInSettings } from "@gateway-control/domain"
import { Effect, Option, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { Int, Timestamp } from "./internal/rows.ts"
import { read } from "./internal/statements.ts"

const SettingsRow = Schema.Struct({ ...SignInSettings.fields, last_updated_at: Schema.NullOr(Timestamp) }).pipe(
  Schema.decodeTo(SignInSettings)
)

const TotpRow = Schema.Struct({
  user_id: Schema.String,
  encrypted_secret: Schema.String,
  active: Schema.Boolean,
  last_used_step: Schema.NullOr(Int)
})

export const makeLocalAccountStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const settingsOf = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: SettingsRow,
    execute: (id) =>
      sql`SELECT organisation_id, local_accounts_enabled, require_second_factor, last_updated_at
          FROM sign_in_settings WHERE organisation_id = ${id}`
  })
  const totpOf = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: TotpRow,
    execute: (userId) =>
      sql`SELECT user_id, encrypted_secret, active, last_used_step FROM totp_factors WHERE user_id = ${userId}`
  })
  const takeChallenge = SqlSchema.findOneOption({
    Request: Schema.Struct({ tokenHash: Schema.String, now: Schema.String }),
    Result: Schema.Struct({ user_id: Schema.String, live: Schema.Boolean }),
    execute: ({ now, tokenHash }) =>
      sql`DELETE FROM sign_in_challenges WHERE token_hash = ${tokenHash} RETURNING user_id, expires_at > ${now} AS live`
  })
  const changed = (rows: ReadonlyArray<unknown>) => rows.length > 0

  return LocalAccountStore.of({
    settingsOf: (id) => read(settingsOf(id)),
    saveSettings: (s) =>
      read(sql`
        INSERT INTO sign_in_settings (organisation_id, local_accounts_enabled, require_second_factor, last_updated_at)
        VALUES (${s.organisation_id}, ${s.local_accounts_enabled}, ${s.require_second_factor}, ${s.last_updated_at})
        ON CONFLICT (organisation_id) DO UPDATE SET local_accounts_enabled = EXCLUDED.local_accounts_enabled,
          require_second_factor = EXCLUDED.require_second_factor, last_updated_at = EXCLUDED.last_updated_at`
        .pipe(Effect.asVoid)),
    totpOf: (userId) =>
      read(Effect.map(
        totpOf(userId),
        Option.map((row) => ({
          userId: row.user_id,
          encryptedSecret: row.encrypted_secret,
          active: row.active,
          lastUsedStep: row.last_used_step
        }))
      )),
    savePendingTotp: (userId, encryptedSecret, at) =>
      read(sql`
        INSERT INTO totp_factors (user_id, encrypted_secret, active, last_used_step, created_at, activated_at)
        VALUES (${userId}, ${encryptedSecret}, false, NULL, ${at}, NULL)
        ON CONFLICT (user_id) DO UPDATE SET encrypted_secret = EXCLUDED.encrypted_secret, active = false,
          last_used_step = NULL, created_at = EXCLUDED.created_at, activated_at = NULL`.pipe(Effect.asVoid)),
    activateTotp: (userId, step, at) =>
      read(Effect.map(
        sql`UPDATE totp_factors SET active = true, last_used_step = ${step}, activated_at = ${at}
            WHERE user_id = ${userId} AND NOT active RETURNING user_id`,
        changed
      )),
    useTotpStep: (userId, step) =>
      read(Effect.map(
        sql`UPDATE totp_factors SET last_used_step = ${step}
            WHERE user_id = ${userId} AND active AND (last_used_step IS NULL OR last_used_step < ${step})
            RETURNING user_id`,
        changed
      )),
    deleteTotp: (userId) =>
      read(Effect.map(sql`DELETE FROM totp_factors WHERE user_id = ${userId} RETURNING user_id`, changed)),
    insertChallenge: (tokenHash, userId, expiresAt, now) =>
      read(
        Effect.andThen(
          sql`DELETE FROM sign_in_challenges WHERE expires_at <= ${now}`,
          sql`INSERT INTO sign_in_challenges (token_hash, user_id, expires_at)
            VALUES (${tokenHash}, ${userId}, ${expiresAt})`
        ).pipe(Effect.asVoid)
      ),
    takeChallenge: (tokenHash, now) =>
      read(
        Effect.map(takeChallenge({ tokenHash, now }), (row) =>
          Option.isSome(row) && row.value.live ? Option.some(row.value.user_id) : Option.none())
      )
  })
})
