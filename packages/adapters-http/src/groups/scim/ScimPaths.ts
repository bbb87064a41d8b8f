/** Where the SCIM 2.0 service provider answers, and the media types its requests may carry (RFC 7644 §3.1). */
export const SCIM_PATH = "/scim/v2"

export const SCIM_MEDIA_TYPE = "application/scim+json"

export const SCIM_MEDIA_TYPES: ReadonlySet<string> = new Set([SCIM_MEDIA_TYPE, "application/json"])
