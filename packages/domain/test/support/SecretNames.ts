/**
 * The secret-looking field names of the audit's redaction tests, shared by the domain's unit test and the
 * server's end-to-end one so both check the same list.
 */

/** Field names the redaction must treat as secrets. */
export const SECRET_NAMES = [
  "x-api-key",
  "api-key",
  "apiKey",
  "accessToken",
  "clientSecret",
  "X-Auth-Token",
  "Proxy-Authorization",
  "private-key",
  "passwd",
  "cookie",
  "bearer",
  "password",
  "api_key",
  "token",
  "key",
  "authorization",
  "refresh_token",
  "APIKEY",
  "openai_key",
  "credentials",
  "session_id",
  "Set-Cookie",
  "secret_key",
  "AWS_SECRET_ACCESS_KEY",
  "auth",
  "x-auth",
  "Proxy-Auth",
  "basic_auth",
  "pass",
  "db_pass"
]

/** Field names that look like secrets in part and are not: their values are kept. */
export const HARMLESS_NAMES = [
  "max_tokens",
  "prompt_tokens",
  "completion_tokens",
  "max_completion_tokens",
  "token_count",
  "maxTokens",
  "tokenizer",
  "sort_key",
  "public_key",
  "virtual_key",
  "api_key_id",
  "masked_key",
  "key_name",
  "auth_type",
  "auth_method",
  "pass_through",
  "passthrough",
  "keyword",
  "monkey",
  "secretary",
  "author",
  "name",
  "workspace_id"
]
