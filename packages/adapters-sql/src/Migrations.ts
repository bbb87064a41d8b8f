/**
 * The schema, as numbered forward-only migrations. All pending migrations run in one transaction,
 * behind a transaction-scoped advisory lock, so processes starting together never run one twice.
 */
import { Data, Effect } from "effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"

/** A migration from a script of statements, run one by one (the extended protocol takes one at a time). */
const migration = (script: string): Effect.Effect<void, unknown, SqlClient.SqlClient> =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    Effect.forEach(
      script.split(/;\s*\n/).map((statement) => statement.trim()).filter((statement) => statement.length > 0),
      (statement) => sql.unsafe(statement),
      { discard: true }
    ))

/**
 * Prompts and partials are the same kind of table (0003): a named, slugged template of a workspace with the
 * version it publishes, listed newest first in an organisation or a workspace.
 */
const versionedTemplates = (table: string) => `
    CREATE TABLE ${table} (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      workspace_id text NOT NULL REFERENCES workspaces (id),
      name text NOT NULL,
      slug text NOT NULL,
      published_version integer NOT NULL,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      CONSTRAINT ${table}_slug_unique UNIQUE (workspace_id, slug)
    );
    CREATE INDEX ${table}_organisation_created ON ${table} (organisation_id, created_at, id);
    CREATE INDEX ${table}_workspace_created ON ${table} (workspace_id, created_at, id)`

/** A table's rows each join their workspace's default collection (0029), which every row must name from then on. */
const intoDefaultCollections = (table: string) => `
    ALTER TABLE ${table} ADD COLUMN collection_id text;
    UPDATE ${table} p SET collection_id = c.id
      FROM collections c WHERE c.workspace_id = p.workspace_id AND c.is_default;
    ALTER TABLE ${table} ALTER COLUMN collection_id SET NOT NULL;
    CREATE INDEX ${table}_collection_created ON ${table} (collection_id, created_at, id)`

/** Each migration's script, by name: statements separated by `;` at the end of a line. */
export const migrationScripts = {
  "0001_access_model": `
    CREATE TABLE organisations (
      id text PRIMARY KEY,
      name text NOT NULL,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL
    );
    CREATE INDEX organisations_created ON organisations (created_at, id);

    CREATE TABLE workspaces (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      name text NOT NULL,
      slug text NOT NULL,
      description text,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      CONSTRAINT workspaces_slug_unique UNIQUE (organisation_id, slug)
    );
    CREATE INDEX workspaces_organisation_created ON workspaces (organisation_id, created_at, id);

    CREATE TABLE users (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      email text NOT NULL,
      name text,
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      CONSTRAINT users_email_unique UNIQUE (organisation_id, email)
    );
    CREATE INDEX users_organisation_created ON users (organisation_id, created_at, id);

    CREATE TABLE workspace_members (
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('manager', 'member')),
      created_at timestamptz NOT NULL,
      PRIMARY KEY (workspace_id, user_id)
    );
    CREATE INDEX workspace_members_workspace_created ON workspace_members (workspace_id, created_at, user_id);
    CREATE INDEX workspace_members_user ON workspace_members (user_id);

    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      workspace_id text REFERENCES workspaces (id),
      user_id text REFERENCES users (id),
      type text NOT NULL CHECK (type IN ('organisation-service', 'workspace-service', 'workspace-user')),
      name text NOT NULL,
      description text,
      scopes jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('active', 'revoked')),
      masked_key text NOT NULL,
      digest text NOT NULL,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      expires_at timestamptz,
      CONSTRAINT api_keys_digest_unique UNIQUE (digest)
    );
    CREATE INDEX api_keys_organisation_created ON api_keys (organisation_id, created_at, id);
    CREATE INDEX api_keys_workspace_created ON api_keys (workspace_id, created_at, id);
  `,
  // No foreign keys: audit records outlive what they describe.
  "0002_audit_logs": `
    CREATE TABLE audit_logs (
      seq bigint PRIMARY KEY,
      id text NOT NULL UNIQUE,
      timestamp timestamptz NOT NULL,
      organisation_id text NOT NULL,
      workspace_id text,
      user_id text,
      user_type text NOT NULL,
      api_key_id text,
      action text NOT NULL,
      resource_type text NOT NULL,
      resource_id text,
      method text NOT NULL,
      uri text NOT NULL,
      request_id text NOT NULL,
      request_body jsonb,
      response_status_code integer NOT NULL,
      client_ip text,
      previous_hash text NOT NULL,
      hash text NOT NULL
    );
    CREATE INDEX audit_logs_organisation_seq ON audit_logs (organisation_id, seq DESC);
  `,
  "0003_prompts": `
    ${versionedTemplates("prompts")};
    CREATE INDEX prompts_organisation_slug ON prompts (organisation_id, slug);

    CREATE TABLE prompt_versions (
      id text PRIMARY KEY,
      prompt_id text NOT NULL REFERENCES prompts (id) ON DELETE CASCADE,
      version integer NOT NULL,
      string text NOT NULL,
      parameters jsonb NOT NULL,
      model text,
      type text NOT NULL CHECK (type IN ('chat', 'completion')),
      is_raw_template boolean NOT NULL,
      version_description text,
      template_metadata jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      CONSTRAINT prompt_versions_number_unique UNIQUE (prompt_id, version)
    );

    CREATE TABLE prompt_labels (
      prompt_id text NOT NULL REFERENCES prompts (id) ON DELETE CASCADE,
      label text NOT NULL,
      version integer NOT NULL,
      last_updated_at timestamptz NOT NULL,
      PRIMARY KEY (prompt_id, label)
    );

    ${versionedTemplates("prompt_partials")};

    CREATE TABLE prompt_partial_versions (
      id text PRIMARY KEY,
      partial_id text NOT NULL REFERENCES prompt_partials (id) ON DELETE CASCADE,
      version integer NOT NULL,
      string text NOT NULL,
      version_description text,
      created_at timestamptz NOT NULL,
      CONSTRAINT prompt_partial_versions_number_unique UNIQUE (partial_id, version)
    );
  `,
  "0004_mcp_registry": `
    CREATE TABLE mcp_integrations (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      name text NOT NULL,
      slug text NOT NULL,
      owner_id text,
      status text NOT NULL CHECK (status IN ('active', 'archived')),
      url text NOT NULL,
      description text,
      workspace_id text REFERENCES workspaces (id),
      configurations jsonb NOT NULL,
      auth_type text NOT NULL,
      transport text NOT NULL,
      global_workspace_access boolean NOT NULL,
      workspace_ids jsonb NOT NULL,
      secret_mappings jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      CONSTRAINT mcp_integrations_slug_unique UNIQUE (organisation_id, slug)
    );
    CREATE INDEX mcp_integrations_organisation_created
      ON mcp_integrations (organisation_id, status, created_at, id);
    CREATE INDEX mcp_integrations_workspace_created
      ON mcp_integrations (workspace_id, status, created_at, id);

    CREATE TABLE mcp_servers (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      workspace_id text NOT NULL REFERENCES workspaces (id),
      slug text NOT NULL,
      name text NOT NULL,
      status text NOT NULL,
      description text,
      mcp_integration_id text NOT NULL REFERENCES mcp_integrations (id),
      created_at timestamptz NOT NULL,
      CONSTRAINT mcp_servers_slug_unique UNIQUE (workspace_id, slug)
    );
    CREATE INDEX mcp_servers_organisation_created ON mcp_servers (organisation_id, created_at, id);
    CREATE INDEX mcp_servers_workspace_created ON mcp_servers (workspace_id, created_at, id);
  `,
  // Provider keys are stored encrypted (AES-256-GCM with the gateway's master key), never in the clear.
  "0005_provider_credentials": `
    CREATE TABLE virtual_keys (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      workspace_id text NOT NULL REFERENCES workspaces (id),
      name text NOT NULL,
      slug text NOT NULL,
      provider text NOT NULL,
      masked_key text NOT NULL,
      encrypted_key text NOT NULL,
      custom_host text,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      CONSTRAINT virtual_keys_slug_unique UNIQUE (workspace_id, slug)
    );
    CREATE INDEX virtual_keys_organisation_created ON virtual_keys (organisation_id, created_at, id);
    CREATE INDEX virtual_keys_workspace_created ON virtual_keys (workspace_id, created_at, id);

    CREATE TABLE configs (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      workspace_id text NOT NULL REFERENCES workspaces (id),
      name text NOT NULL,
      slug text NOT NULL,
      config jsonb NOT NULL,
      masked_api_key text,
      encrypted_api_key text,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      CONSTRAINT configs_slug_unique UNIQUE (workspace_id, slug)
    );
    CREATE INDEX configs_organisation_created ON configs (organisation_id, created_at, id);
    CREATE INDEX configs_workspace_created ON configs (workspace_id, created_at, id);
  `,
  // Exact list totals without counting rows: per organisation, status and level, kept in the writing
  // transaction by statement-level triggers (a bulk insert updates each count once, not once a row).
  // The function body stays on one line: scripts are split at ";" + newline.
  "0006_mcp_integration_counts": `
    CREATE TABLE mcp_integration_counts (
      organisation_id text NOT NULL,
      status text NOT NULL,
      organisation_level boolean NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (organisation_id, status, organisation_level)
    );
    INSERT INTO mcp_integration_counts (organisation_id, status, organisation_level, n)
      SELECT organisation_id, status, workspace_id IS NULL, count(*) FROM mcp_integrations GROUP BY 1, 2, 3;
    CREATE FUNCTION mcp_integration_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP IN ('UPDATE', 'DELETE') THEN UPDATE mcp_integration_counts c SET n = c.n - d.n FROM (SELECT organisation_id, status, workspace_id IS NULL AS organisation_level, count(*) AS n FROM old_rows GROUP BY 1, 2, 3) d WHERE c.organisation_id = d.organisation_id AND c.status = d.status AND c.organisation_level = d.organisation_level; END IF; IF TG_OP IN ('INSERT', 'UPDATE') THEN INSERT INTO mcp_integration_counts AS c (organisation_id, status, organisation_level, n) SELECT organisation_id, status, workspace_id IS NULL, count(*) FROM new_rows GROUP BY 1, 2, 3 ON CONFLICT (organisation_id, status, organisation_level) DO UPDATE SET n = c.n + EXCLUDED.n; END IF; RETURN NULL; END $$;
    CREATE TRIGGER mcp_integration_counts_insert AFTER INSERT ON mcp_integrations
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mcp_integration_counts_track();
    CREATE TRIGGER mcp_integration_counts_update AFTER UPDATE ON mcp_integrations
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mcp_integration_counts_track();
    CREATE TRIGGER mcp_integration_counts_delete AFTER DELETE ON mcp_integrations
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION mcp_integration_counts_track()
  `,
  // Who created each key. Keys made before this migration keep null: their creator was not recorded.
  // No foreign keys: like the audit log, a key's provenance outlives the user or key it names.
  "0007_api_key_creator": `
    ALTER TABLE api_keys ADD COLUMN created_by_user_id text;
    ALTER TABLE api_keys ADD COLUMN created_by_api_key_id text
  `,
  // The keyed audit chain: each record names its hash algorithm. Existing records keep plain SHA-256 (the
  // default fills them in, then goes, so every new record must say); calls with no known key belong to no
  // organisation; records say whether their content had to be made storable.
  "0008_audit_keyed_chain": `
    ALTER TABLE audit_logs ADD COLUMN hash_algorithm text NOT NULL DEFAULT 'sha256'
      CHECK (hash_algorithm IN ('sha256', 'hmac-sha256'));
    ALTER TABLE audit_logs ALTER COLUMN hash_algorithm DROP DEFAULT;
    ALTER TABLE audit_logs ADD COLUMN sanitized boolean NOT NULL DEFAULT false;
    ALTER TABLE audit_logs ALTER COLUMN sanitized DROP DEFAULT;
    ALTER TABLE audit_logs ALTER COLUMN organisation_id DROP NOT NULL;
    CREATE INDEX audit_logs_unauthenticated_seq ON audit_logs (seq DESC) WHERE organisation_id IS NULL
  `,
  // A partial's own description and status (archived partials are read, not rendered). Existing partials
  // are active (the default fills them in, then goes, so every new partial must say).
  "0009_prompt_partial_metadata": `
    ALTER TABLE prompt_partials ADD COLUMN description text;
    ALTER TABLE prompt_partials ADD COLUMN status text NOT NULL DEFAULT 'active'
      CHECK (status IN ('active', 'archived'));
    ALTER TABLE prompt_partials ALTER COLUMN status DROP DEFAULT
  `,
  // Labels as resources of a workspace, or of the organisation (workspace_id null). A name is unique at its
  // level; the service keeps it unique among the labels any one workspace has. Prompts' pointers still name
  // labels by name; every name they already use becomes a label of the prompt's workspace (the three built-in
  // labels are no rows: every organisation has them).
  "0010_labels": `
    CREATE TABLE labels (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      workspace_id text REFERENCES workspaces (id),
      name text NOT NULL,
      description text,
      color_code text,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX labels_workspace_name_unique ON labels (workspace_id, name) WHERE workspace_id IS NOT NULL;
    CREATE UNIQUE INDEX labels_organisation_name_unique ON labels (organisation_id, name) WHERE workspace_id IS NULL;
    CREATE INDEX labels_organisation_created ON labels (organisation_id, created_at, id);
    CREATE INDEX labels_organisation_name ON labels (organisation_id, name);
    INSERT INTO labels (id, organisation_id, workspace_id, name, description, color_code, created_at, last_updated_at)
      SELECT gen_random_uuid()::text, p.organisation_id, p.workspace_id, l.label, NULL, NULL,
             min(l.last_updated_at), min(l.last_updated_at)
      FROM prompt_labels l JOIN prompts p ON p.id = l.prompt_id
      WHERE l.label NOT IN ('production', 'staging', 'development')
      GROUP BY p.organisation_id, p.workspace_id, l.label
  `,
  // `api_keys.update` came after keys existed: a key that may revoke keys (`api_keys.delete`) may also rename
  // them and narrow their scopes, so an upgrade does not leave existing admin keys unable to use the new route.
  "0011_api_keys_update_scope": `
    UPDATE api_keys SET scopes = scopes || '["api_keys.update"]'::jsonb
    WHERE scopes ? 'api_keys.delete' AND NOT scopes ? 'api_keys.update'
  `,
  // Live MCP integrations: health (status 'unhealthy', its message and time, failures in a row), capabilities
  // and their on/off choices, the registry API's keyset order, and leases for background jobs. Lists of
  // integrations in use (every status but archived) get indexes of their own, so a page still stops at LIMIT.
  "0012_mcp_live": `
    ALTER TABLE mcp_integrations DROP CONSTRAINT mcp_integrations_status_check;
    ALTER TABLE mcp_integrations ADD CONSTRAINT mcp_integrations_status_check
      CHECK (status IN ('active', 'unhealthy', 'archived'));
    ALTER TABLE mcp_integrations ADD COLUMN new_capabilities_enabled boolean NOT NULL DEFAULT true;
    ALTER TABLE mcp_integrations ADD COLUMN status_message text;
    ALTER TABLE mcp_integrations ADD COLUMN status_changed_at timestamptz NOT NULL DEFAULT now();
    UPDATE mcp_integrations SET status_changed_at = last_updated_at;
    ALTER TABLE mcp_integrations ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0;
    CREATE INDEX mcp_integrations_organisation_in_use
      ON mcp_integrations (organisation_id, created_at, id) WHERE status <> 'archived';
    CREATE INDEX mcp_integrations_workspace_in_use
      ON mcp_integrations (workspace_id, created_at, id) WHERE status <> 'archived';

    CREATE TABLE mcp_capabilities (
      integration_id text NOT NULL REFERENCES mcp_integrations (id),
      type text COLLATE "C" NOT NULL CHECK (type IN ('tool', 'prompt', 'resource', 'resource_template')),
      name text COLLATE "C" NOT NULL,
      description text,
      enabled boolean NOT NULL,
      input_schema jsonb,
      synced_at timestamptz NOT NULL,
      PRIMARY KEY (integration_id, type, name)
    );

    CREATE INDEX mcp_servers_directory
      ON mcp_servers (organisation_id, (workspace_id COLLATE "C"), (slug COLLATE "C"));

    CREATE TABLE leases (
      name text PRIMARY KEY,
      holder text NOT NULL,
      expires_at timestamptz NOT NULL
    )
  `,
  // Keys in production: rotation (the replaced secret's digest, kept until its transition ends), when each key
  // was last used, and its request limits (existing keys have none: the default fills them in, then goes).
  // Rotating came after keys existed: a key that may create keys of a kind may also rotate them, as the rule
  // of rotating is the rule of creating (so an upgrade leaves admin keys able to rotate).
  "0013_api_key_rotation_usage_limits": `
    UPDATE api_keys SET scopes = scopes || '["organisation_service_api_keys.rotate"]'::jsonb
    WHERE scopes ? 'organisation_service_api_keys.create' AND NOT scopes ? 'organisation_service_api_keys.rotate';
    UPDATE api_keys SET scopes = scopes || '["workspace_service_api_keys.rotate"]'::jsonb
    WHERE scopes ? 'workspace_service_api_keys.create' AND NOT scopes ? 'workspace_service_api_keys.rotate';
    UPDATE api_keys SET scopes = scopes || '["workspace_user_api_keys.rotate"]'::jsonb
    WHERE scopes ? 'workspace_user_api_keys.create' AND NOT scopes ? 'workspace_user_api_keys.rotate';
    ALTER TABLE api_keys ADD COLUMN previous_digest text;
    ALTER TABLE api_keys ADD COLUMN rotated_at timestamptz;
    ALTER TABLE api_keys ADD COLUMN transition_ends_at timestamptz;
    ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
    ALTER TABLE api_keys ADD COLUMN rate_limits jsonb NOT NULL DEFAULT '[]';
    ALTER TABLE api_keys ALTER COLUMN rate_limits DROP DEFAULT;
    CREATE UNIQUE INDEX api_keys_previous_digest_unique ON api_keys (previous_digest) WHERE previous_digest IS NOT NULL;
    CREATE INDEX api_keys_transitions ON api_keys (transition_ends_at) WHERE previous_digest IS NOT NULL
  `,
  // Audit chains: a record's position is in its chain, and every record so far is in chain 0. Listings go
  // newest first by time (then chain and position), as positions of different chains do not compare. Each
  // chain's end is a row that appends lock; 16 chains, chain 0 ending where the one chain ended.
  "0014_audit_chains": `
    ALTER TABLE audit_logs ADD COLUMN chain integer NOT NULL DEFAULT 0 CHECK (chain >= 0);
    ALTER TABLE audit_logs ALTER COLUMN chain DROP DEFAULT;
    ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_pkey;
    ALTER TABLE audit_logs ADD PRIMARY KEY (chain, seq);
    DROP INDEX audit_logs_organisation_seq;
    DROP INDEX audit_logs_unauthenticated_seq;
    CREATE INDEX audit_logs_organisation_time ON audit_logs (organisation_id, timestamp DESC, chain DESC, seq DESC);
    CREATE INDEX audit_logs_unauthenticated_time ON audit_logs (timestamp DESC, chain DESC, seq DESC)
      WHERE organisation_id IS NULL;
    CREATE TABLE audit_chain_heads (
      chain integer PRIMARY KEY CHECK (chain >= 0),
      seq bigint NOT NULL,
      hash text NOT NULL
    );
    INSERT INTO audit_chain_heads (chain, seq, hash) SELECT c, 0, repeat('0', 64) FROM generate_series(0, 15) AS c;
    UPDATE audit_chain_heads SET seq = last.seq, hash = last.hash
      FROM (SELECT seq, hash FROM audit_logs ORDER BY seq DESC LIMIT 1) AS last WHERE chain = 0
  `,
  // The plain SHA-256 records of before the keyed chain (0008), counted once, here: the gateway names them in
  // a keyed record, the legacy seal, on its next start and marks them sealed; verification then allows
  // exactly that many plain records at the start of chain 0, and none without a seal. A store created after
  // the keyed chain counts none, so has nothing to seal. One row.
  "0015_audit_legacy_prefix": `
    CREATE TABLE audit_legacy_prefix (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      plain_records bigint NOT NULL CHECK (plain_records >= 0),
      sealed boolean NOT NULL
    );
    INSERT INTO audit_legacy_prefix (plain_records, sealed)
      SELECT count(*), count(*) = 0 FROM audit_logs WHERE chain = 0 AND hash_algorithm = 'sha256'
  `,
  // Trust policies (RFC 8693 token exchange): which tokens of which issuer a workload may exchange for a
  // short-lived credential, and what that credential may do. A policy belongs to an organisation and names the
  // workspace its credentials act in; the issuer is looked up on every exchange.
  "0023_trust_policies": `
    CREATE TABLE trust_policies (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      workspace_id text NOT NULL REFERENCES workspaces (id),
      name text NOT NULL,
      issuer text COLLATE "C" NOT NULL,
      jwks_uri text,
      jwks jsonb,
      audience text NOT NULL,
      subject text,
      subject_pattern text,
      claims jsonb NOT NULL,
      scopes jsonb NOT NULL,
      rate_limits jsonb NOT NULL,
      max_ttl_seconds integer NOT NULL CHECK (max_ttl_seconds BETWEEN 1 AND 3600),
      created_at timestamptz NOT NULL,
      created_by_user_id text,
      created_by_api_key_id text,
      last_updated_at timestamptz NOT NULL,
      UNIQUE (organisation_id, name)
    );
    CREATE INDEX trust_policies_issuer ON trust_policies (issuer, created_at, id);
    CREATE INDEX trust_policies_organisation ON trust_policies (organisation_id, created_at, id)
  `,
  // A credential issued by token exchange is an API key that says which workload it stands for (its trust
  // policy, and the token's verified iss and sub); every other key has none.
  "0024_api_key_workload": `
    ALTER TABLE api_keys ADD COLUMN workload jsonb
  `,
  // Audit records name the workload behind a call. Older records have none: their hashes never covered these
  // columns, and a record without a workload still hashes without them (AuditChain.ts).
  "0025_audit_workload": `
    ALTER TABLE audit_logs ADD COLUMN workload_issuer text;
    ALTER TABLE audit_logs ADD COLUMN workload_subject text;
    CREATE INDEX audit_logs_workload_subject
      ON audit_logs (organisation_id, workload_subject, timestamp DESC) WHERE workload_subject IS NOT NULL
  `,
  // Portkey's admin family: workspaces are updated and deleted, users changed and removed, memberships changed.
  // A deleted workspace stays as a row (its revoked keys and, when forced, what it held still name it) marked
  // deleted_at; a removed user's row goes (memberships with it), and the keys that acted as them keep naming
  // the id, as audit records do, so that foreign key goes. Keys that may do the neighbouring action gain the
  // new scopes, so an upgrade leaves admin keys able to use the new routes.
  "0026_admin_family": `
    ALTER TABLE workspaces ADD COLUMN deleted_at timestamptz;
    ALTER TABLE workspace_members ADD COLUMN last_updated_at timestamptz;
    UPDATE workspace_members SET last_updated_at = created_at;
    ALTER TABLE workspace_members ALTER COLUMN last_updated_at SET NOT NULL;
    ALTER TABLE api_keys DROP CONSTRAINT api_keys_user_id_fkey;
    CREATE INDEX api_keys_user ON api_keys (user_id) WHERE user_id IS NOT NULL;
    UPDATE api_keys SET scopes = scopes || '["workspaces.delete"]'::jsonb
    WHERE scopes ? 'workspaces.update' AND NOT scopes ? 'workspaces.delete';
    UPDATE api_keys SET scopes = scopes || '["organisation_users.update", "organisation_users.delete"]'::jsonb
    WHERE scopes ? 'organisation_users.create' AND NOT scopes ? 'organisation_users.update';
    UPDATE api_keys SET scopes = scopes || '["workspace_users.read", "workspace_users.update"]'::jsonb
    WHERE scopes ? 'workspace_users.create' AND NOT scopes ? 'workspace_users.update'
  `,
  // Portkey's key fields, kept rather than dropped: usage limits and a rotation policy (objects, null for none)
  // and the addresses alerts would go to.
  "0027_api_key_portkey_fields": `
    ALTER TABLE api_keys ADD COLUMN usage_limits jsonb;
    ALTER TABLE api_keys ADD COLUMN rotation_policy jsonb;
    ALTER TABLE api_keys ADD COLUMN alert_emails jsonb NOT NULL DEFAULT '[]';
    ALTER TABLE api_keys ALTER COLUMN alert_emails DROP DEFAULT
  `,
  // A virtual key's note and usage limits, as Portkey's clients send them.
  "0028_virtual_key_portkey_fields": `
    ALTER TABLE virtual_keys ADD COLUMN note text;
    ALTER TABLE virtual_keys ADD COLUMN usage_limits jsonb
  `,
  // Collections hold a workspace's prompts and partials. Every workspace gets its default collection (slug
  // 'default', one per workspace), and every prompt and partial so far moves into its workspace's, ids kept.
  // A collection's id is not a foreign key of prompts: deleting a collection that holds any is refused by
  // the domain (Collections.ts), and a workspace's prompts and collections go together.
  // Organisation-wide slug lookups (ResourceLookup.ts) get an index on every kind that lacked one.
  "0029_collections": `
    CREATE TABLE collections (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      workspace_id text NOT NULL REFERENCES workspaces (id),
      name text NOT NULL,
      slug text NOT NULL,
      parent_collection_id text REFERENCES collections (id),
      is_default boolean NOT NULL,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      CONSTRAINT collections_slug_unique UNIQUE (workspace_id, slug)
    );
    CREATE UNIQUE INDEX collections_one_default ON collections (workspace_id) WHERE is_default;
    CREATE INDEX collections_organisation_created ON collections (organisation_id, created_at, id);
    CREATE INDEX collections_organisation_slug ON collections (organisation_id, slug);
    INSERT INTO collections (id, organisation_id, workspace_id, name, slug, parent_collection_id, is_default,
                             created_at, last_updated_at)
      SELECT gen_random_uuid()::text, organisation_id, id, 'Default', 'default', NULL, true, now(), now()
      FROM workspaces;
    ${intoDefaultCollections("prompts")};
    ${intoDefaultCollections("prompt_partials")};
    CREATE INDEX prompt_partials_organisation_slug ON prompt_partials (organisation_id, slug);
    CREATE INDEX virtual_keys_organisation_slug ON virtual_keys (organisation_id, slug);
    CREATE INDEX configs_organisation_slug ON configs (organisation_id, slug)
  `,
  // Config versions (one per create and update, the config's name and body, never its key), Portkey's
  // is_default (one per workspace) and status. Every config so far gets its version 1.
  "0030_config_versions": `
    ALTER TABLE configs ADD COLUMN is_default integer NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1));
    ALTER TABLE configs ALTER COLUMN is_default DROP DEFAULT;
    ALTER TABLE configs ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived'));
    ALTER TABLE configs ALTER COLUMN status DROP DEFAULT;
    CREATE UNIQUE INDEX configs_one_default ON configs (workspace_id) WHERE is_default = 1;
    CREATE TABLE config_versions (
      id text PRIMARY KEY,
      config_id text NOT NULL REFERENCES configs (id) ON DELETE CASCADE,
      version integer NOT NULL,
      name text NOT NULL,
      config jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      CONSTRAINT config_versions_number_unique UNIQUE (config_id, version)
    );
    INSERT INTO config_versions (id, config_id, version, name, config, created_at)
      SELECT gen_random_uuid()::text, id, 1, name, config, last_updated_at FROM configs;
    ALTER TABLE configs ADD COLUMN version_id text;
    UPDATE configs c SET version_id = v.id FROM config_versions v WHERE v.config_id = c.id;
    ALTER TABLE configs ALTER COLUMN version_id SET NOT NULL
  `,
  // The check value of the master key the store was made with (an HMAC of a constant under a key derived
  // from it): a start with another key is refused. One row, written at the first start that finds none.
  "0032_master_key_check": `
    CREATE TABLE master_key_check (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      value text NOT NULL
    )
  `,
  // People sign in (issue 26): server-side sessions (only the token's hash is kept), local accounts' password
  // hashes, and audit records that name the person, their session and, for SSO, their provider and subject.
  // Older records have none of these: their hashes never covered the columns (AuditChain.ts).
  "0033_sessions": `
    CREATE TABLE sessions (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      organisation_id text NOT NULL,
      token_hash text NOT NULL UNIQUE,
      method text NOT NULL,
      identity_provider text,
      subject text,
      created_at timestamptz NOT NULL,
      last_seen_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      user_agent text,
      client_ip text
    );
    CREATE INDEX sessions_user ON sessions (user_id, created_at DESC);
    CREATE TABLE local_accounts (
      user_id text PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      password_hash text NOT NULL,
      updated_at timestamptz NOT NULL
    );
    ALTER TABLE audit_logs ADD COLUMN user_email text;
    ALTER TABLE audit_logs ADD COLUMN session_id text;
    ALTER TABLE audit_logs ADD COLUMN identity_provider text;
    ALTER TABLE audit_logs ADD COLUMN identity_subject text;
    CREATE INDEX audit_logs_user_email
      ON audit_logs (organisation_id, lower(user_email), timestamp DESC) WHERE user_email IS NOT NULL
  `,
  // Idempotency keys of creates: per credential digest (scope) and key, the request's fingerprint and, once
  // it has finished, its answer. The primary key makes concurrent claims of one key, from any process, one.
  "0050_idempotency_keys": `
    CREATE TABLE idempotency_keys (
      scope text NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      status integer,
      content_type text,
      body text,
      locked_until timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (scope, key)
    );
    CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)
  `,
  // Identity providers people sign in with (OpenID Connect), their client secret encrypted with the master key,
  // and the sign-ins under way between the redirect to a provider and its callback (taken once, by the digest
  // of their state).
  "0040_identity_providers": `
    CREATE TABLE identity_providers (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      slug text COLLATE "C" NOT NULL,
      name text NOT NULL,
      issuer text NOT NULL,
      client_id text NOT NULL,
      client_secret_encrypted text NOT NULL,
      client_secret_hint text NOT NULL,
      groups_claim text NOT NULL,
      role_map jsonb NOT NULL,
      allowed_domains jsonb NOT NULL,
      enabled boolean NOT NULL,
      source text NOT NULL CHECK (source IN ('api', 'environment')),
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      CONSTRAINT identity_providers_slug_unique UNIQUE (slug)
    );
    CREATE INDEX identity_providers_organisation ON identity_providers (organisation_id, created_at, id);
    CREATE TABLE oidc_sign_in_flows (
      state_digest text PRIMARY KEY,
      provider_id text NOT NULL,
      nonce text NOT NULL,
      code_verifier text NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX oidc_sign_in_flows_expiry ON oidc_sign_in_flows (expires_at)
  `,
  // SCIM tokens: the bearer secrets identity providers provision users with, kept as SHA-256 digests.
  "0055_scim_tokens": `
    CREATE TABLE scim_tokens (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      name text NOT NULL,
      digest text NOT NULL UNIQUE,
      masked_token text NOT NULL,
      status text NOT NULL CHECK (status IN ('active', 'revoked')),
      created_at timestamptz NOT NULL,
      created_by_user_id text,
      created_by_api_key_id text,
      revoked_at timestamptz,
      last_updated_at timestamptz NOT NULL
    );
    CREATE INDEX scim_tokens_organisation ON scim_tokens (organisation_id, created_at, id)
  `,
  // What SCIM keeps of a user beyond the user: the identity provider's id, and whether it deprovisioned them.
  "0056_scim_identities": `
    CREATE TABLE scim_identities (
      user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      organisation_id text NOT NULL REFERENCES organisations (id),
      external_id text,
      active boolean NOT NULL,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL
    );
    CREATE INDEX scim_identities_organisation ON scim_identities (organisation_id)
  `,
  // Secret references: where an organisation's secret is in its own manager, and the login to fetch it (its
  // secret fields encrypted with the master key, in encrypted_auth; never the secret itself). Admin keys that
  // may create organisation service keys gain the new scopes, so an upgrade leaves them able to use the routes.
  "0060_secret_references": `
    CREATE TABLE secret_references (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      name text NOT NULL,
      slug text NOT NULL,
      description text,
      manager_type text NOT NULL,
      auth_config jsonb NOT NULL,
      encrypted_auth jsonb NOT NULL,
      secret_path text NOT NULL,
      secret_key text,
      allow_all_workspaces boolean NOT NULL,
      allowed_workspaces jsonb NOT NULL,
      tags jsonb,
      status text NOT NULL,
      created_by text NOT NULL,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      UNIQUE (organisation_id, slug)
    );
    CREATE INDEX secret_references_organisation ON secret_references (organisation_id, created_at, id);
    UPDATE api_keys SET scopes = scopes || '["secret_references.create", "secret_references.read",
      "secret_references.list", "secret_references.update", "secret_references.delete"]'::jsonb
    WHERE scopes ? 'organisation_service_api_keys.create' AND NOT scopes ? 'secret_references.create'
  `,
  // Invitations (issue 26): an email invited with an organisation role and workspace roles, by a single-use
  // link that expires. Only the SHA-256 of the link's token is kept; `expired` is a pending row past its
  // expires_at, decided when read.
  "0065_invites": `
    CREATE TABLE invites (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations(id),
      email text NOT NULL,
      role text NOT NULL,
      workspaces jsonb NOT NULL,
      status text NOT NULL,
      token_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      accepted_at timestamptz,
      accepted_user_id text,
      invited_by text,
      invited_by_api_key_id text,
      last_updated_at timestamptz NOT NULL
    );
    CREATE INDEX invites_organisation ON invites (organisation_id, created_at, id)
  `,
  // A sign-in by an identity provider can carry an invitation link (issue 26): the SHA-256 of its token.
  "0066_sign_in_flow_invites": `
    ALTER TABLE oidc_sign_in_flows ADD COLUMN invite_token_hash text
  `,
  // The first start's owner link (issue 26) is an invitation to an existing account: the user it sets up.
  "0067_invite_accounts": `
    ALTER TABLE invites ADD COLUMN user_id text REFERENCES users (id) ON DELETE CASCADE
  `,
  // SCIM groups: a name unique in the organisation without case, the identity provider's id for it, and its
  // members, who leave it when removed.
  "0080_scim_groups": `
    CREATE TABLE scim_groups (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      display_name text NOT NULL,
      external_id text,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX scim_groups_name_unique ON scim_groups (organisation_id, lower(display_name));
    CREATE INDEX scim_groups_organisation ON scim_groups (organisation_id, created_at, id);
    CREATE TABLE scim_group_members (
      group_id text NOT NULL REFERENCES scim_groups (id) ON DELETE CASCADE,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      PRIMARY KEY (group_id, user_id)
    );
    CREATE INDEX scim_group_members_user ON scim_group_members (user_id)
  `,
  // AI-provider integrations (issue 29): an organisation's (workspace_id null) or a workspace's credential for
  // one provider. The record's secrets (key, secret configuration fields) are kept encrypted in
  // encrypted_secrets; workspaces and models are the integration's own lists. Keys that manage virtual keys
  // gain the workspace integration scopes of the same verbs, admin keys of owners and admins the organisation's.
  "0085_integrations": `
    CREATE TABLE integrations (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      workspace_id text REFERENCES workspaces (id),
      name text NOT NULL,
      slug text NOT NULL,
      ai_provider_id text NOT NULL,
      description text,
      status text NOT NULL,
      masked_key text,
      configurations jsonb NOT NULL,
      encrypted_secrets jsonb NOT NULL,
      secret_mappings jsonb NOT NULL,
      global_workspace_access_settings jsonb,
      workspaces jsonb NOT NULL,
      allow_all_models boolean NOT NULL,
      models jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      CONSTRAINT integrations_slug_unique UNIQUE (organisation_id, slug)
    );
    CREATE INDEX integrations_organisation ON integrations (organisation_id, created_at, id);
    UPDATE api_keys SET scopes = scopes || '["organisation_integrations.create", "organisation_integrations.read",
      "organisation_integrations.list", "organisation_integrations.update", "organisation_integrations.delete",
      "workspace_integrations.create", "workspace_integrations.read", "workspace_integrations.list",
      "workspace_integrations.update", "workspace_integrations.delete"]'::jsonb
    WHERE scopes ? 'organisation_service_api_keys.create' AND NOT scopes ? 'organisation_integrations.create';
    UPDATE api_keys SET scopes = scopes || (
      SELECT coalesce(jsonb_agg('workspace_integrations.' || substr(scope, length('virtual_keys.') + 1)), '[]'::jsonb)
      FROM jsonb_array_elements_text(scopes) AS scope
      WHERE scope IN ('virtual_keys.create', 'virtual_keys.read', 'virtual_keys.list', 'virtual_keys.update',
        'virtual_keys.delete')
        AND NOT scopes ? ('workspace_integrations.' || substr(scope, length('virtual_keys.') + 1))
    )
  `,
  // Providers (issue 29): a workspace's handle on an integration it may use, addressed as @slug. A slug is unique
  // in its workspace; an integration with providers is not deleted (the service refuses, the key here holds).
  "0086_providers": `
    CREATE TABLE providers (
      id text PRIMARY KEY,
      organisation_id text NOT NULL REFERENCES organisations (id),
      workspace_id text NOT NULL REFERENCES workspaces (id),
      integration_id text NOT NULL REFERENCES integrations (id),
      name text NOT NULL,
      slug text NOT NULL,
      note text,
      status text NOT NULL,
      usage_limits jsonb,
      rate_limits jsonb,
      expires_at timestamptz,
      models jsonb,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      CONSTRAINT providers_slug_unique UNIQUE (workspace_id, slug)
    );
    CREATE INDEX providers_organisation ON providers (organisation_id, created_at, id);
    CREATE INDEX providers_integration ON providers (integration_id, created_at, id)
  `,
  // Portkey's prompt fields (issue 28): a version's virtual_key (the slug of the virtual key its completions
  // go through), stored and returned.
  "0095_prompt_virtual_key": `
    ALTER TABLE prompt_versions ADD COLUMN virtual_key text
  `,
  // Who may use an MCP server (issue 28, Portkey's user access): the server's default and each user's override.
  "0096_mcp_server_user_access": `
    CREATE TABLE mcp_server_access (
      server_id text PRIMARY KEY REFERENCES mcp_servers (id) ON DELETE CASCADE,
      default_user_access text NOT NULL CHECK (default_user_access IN ('allow', 'deny')),
      last_updated_at timestamptz NOT NULL
    );
    CREATE TABLE mcp_server_user_access (
      server_id text NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
      user_id text NOT NULL,
      enabled boolean NOT NULL,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      PRIMARY KEY (server_id, user_id)
    )
  `,
  // The trace a record's call belongs to, when the process exports traces; null on every earlier record.
  "0100_audit_trace_id": `
    ALTER TABLE audit_logs ADD COLUMN trace_id text
  `,
  // Local accounts hardened (issue 26): an organisation's sign-in settings (password sign-in on or off, a second
  // factor required), people's TOTP second factors (the secret encrypted with the master key; the time step of the
  // last code used, so no code is used twice) and the single-use challenges between a password sign-in's two steps
  // (only the token's hash is kept).
  "0105_local_account_hardening": `
    CREATE TABLE sign_in_settings (
      organisation_id text PRIMARY KEY REFERENCES organisations(id),
      local_accounts_enabled boolean NOT NULL,
      require_second_factor boolean NOT NULL,
      last_updated_at timestamptz
    );
    CREATE TABLE totp_factors (
      user_id text PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      encrypted_secret text NOT NULL,
      active boolean NOT NULL,
      last_used_step bigint,
      created_at timestamptz NOT NULL,
      activated_at timestamptz
    );
    CREATE TABLE sign_in_challenges (
      token_hash text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX sign_in_challenges_expiry ON sign_in_challenges (expires_at)
  `,
  // Virtual keys become a view (issue 29): each becomes a workspace-level integration holding its provider key
  // (the same ciphertext) and custom host, and the workspace's provider on it, both with the key's id; the
  // provider keeps the slug, name, note and usage limits. The integration takes the slug too where it is free in
  // the organisation, else the slug and the id's first 8 characters. A key whose provider no integration takes
  // stops the migration, named, rather than be lost. Workspaces' holdings count providers and integrations.
  "0120_virtual_keys_as_providers": `
    DO $$ DECLARE unknown text; BEGIN
      SELECT string_agg(DISTINCT provider, ', ') INTO unknown FROM virtual_keys
        WHERE provider NOT IN ('openai', 'together-ai', 'fireworks-ai'); IF unknown IS NOT NULL THEN
        RAISE EXCEPTION 'Virtual keys of providers no integration takes (%) cannot become integrations: '
          'delete or change them with the previous release first.', unknown; END IF; END $$;
    INSERT INTO integrations (id, organisation_id, workspace_id, name, slug, ai_provider_id, description, status,
      masked_key, configurations, encrypted_secrets, secret_mappings, global_workspace_access_settings, workspaces,
      allow_all_models, models, created_at, last_updated_at)
    SELECT v.id, v.organisation_id, v.workspace_id, v.name,
      CASE WHEN v.rank = 1 AND NOT EXISTS (
        SELECT 1 FROM integrations i WHERE i.organisation_id = v.organisation_id AND i.slug = v.slug
      ) THEN v.slug ELSE left(v.slug, 55) || '-' || left(v.id, 8) END,
      v.provider, NULL, 'active', v.masked_key,
      CASE WHEN v.custom_host IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('custom_host', v.custom_host) END,
      jsonb_build_object('key', v.encrypted_key), '[]'::jsonb, NULL, '[]'::jsonb, true, '[]'::jsonb, v.created_at,
      v.last_updated_at
    FROM (
      SELECT *, row_number() OVER (PARTITION BY organisation_id, slug ORDER BY created_at, id) AS rank
      FROM virtual_keys
    ) v;
    INSERT INTO providers (id, organisation_id, workspace_id, integration_id, name, slug, note, status, usage_limits,
      rate_limits, expires_at, models, created_at, last_updated_at)
    SELECT id, organisation_id, workspace_id, id, name, slug, note, 'active',
      CASE WHEN jsonb_typeof(usage_limits) = 'object' THEN usage_limits END, NULL, NULL, NULL, created_at,
      last_updated_at
    FROM virtual_keys;
    DROP TABLE virtual_keys
  `,
  // Credential health (issue 29): the last check of each integration's credential, replaced by every check.
  "0125_integration_credential_health": `
    CREATE TABLE integration_credential_health (
      integration_id text PRIMARY KEY REFERENCES integrations (id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('active', 'failing', 'expired')),
      status_message text,
      checked_at timestamptz NOT NULL,
      last_success_at timestamptz,
      last_failure_at timestamptz
    )
  `,
  // The counts' update trigger returns at once when no row moved between counts (organisation, status, level;
  // rows matched by id, which no update changes). The health checker's writes mostly change a failure count, each
  // a statement on the thread that serves requests with PGlite, where the two aggregate statements took a quarter
  // of its time (0.88 -> 0.67 ms a write).
  "0126_mcp_integration_counts_unmoved": `
    CREATE OR REPLACE FUNCTION mcp_integration_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'UPDATE' THEN IF NOT EXISTS (SELECT FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE (n.organisation_id, n.status, n.workspace_id IS NULL) IS DISTINCT FROM (o.organisation_id, o.status, o.workspace_id IS NULL)) THEN RETURN NULL; END IF; END IF; IF TG_OP IN ('UPDATE', 'DELETE') THEN UPDATE mcp_integration_counts c SET n = c.n - d.n FROM (SELECT organisation_id, status, workspace_id IS NULL AS organisation_level, count(*) AS n FROM old_rows GROUP BY 1, 2, 3) d WHERE c.organisation_id = d.organisation_id AND c.status = d.status AND c.organisation_level = d.organisation_level; END IF; IF TG_OP IN ('INSERT', 'UPDATE') THEN INSERT INTO mcp_integration_counts AS c (organisation_id, status, organisation_level, n) SELECT organisation_id, status, workspace_id IS NULL, count(*) FROM new_rows GROUP BY 1, 2, 3 ON CONFLICT (organisation_id, status, organisation_level) DO UPDATE SET n = c.n + EXCLUDED.n; END IF; RETURN NULL; END $$
  `
}

export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = Object.fromEntries(
  Object.entries(migrationScripts).map(([name, script]) => [name, migration(script)])
)

/** An arbitrary constant: the advisory lock that serialises migration runs across processes. */
const MIGRATION_LOCK = 7_321_004_211

const runMigrator = Migrator.make({})

/** Migrations cannot run on this database; the message says why, in the operator's terms. */
export class MigrationRefused extends Data.TaggedError("MigrationRefused")<{ readonly message: string }> {}

/**
 * Fails when the server takes no writes: a replica (in recovery), or read-only by default. Checked before the
 * migrations' transaction, whose first write would fail with "read-only transaction" and whose migrator then
 * reports only the "current transaction is aborted" of its next statement.
 */
const ensureWritable = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly recovery: boolean; readonly read_only: string }>`
    SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only`
  const state = rows[0]
  if (state?.recovery === true) {
    return yield* new MigrationRefused({
      message: "The database is a replica (in recovery), where every transaction is read-only: migrations need the " +
        "primary. " +
        "Point DATABASE_URL at the primary (or add target_session_attrs=read-write to a multi-host URL)."
    })
  }
  if (state?.read_only === "on") {
    return yield* new MigrationRefused({
      message: "The database session is read-only (default_transaction_read_only is on for this user or database): " +
        "migrations need a session that can write."
    })
  }
})

/**
 * Fails when the store lacks a migration numbered below the latest it has applied. Effect's migrator runs only
 * the migrations above the latest applied one, so such a migration would never run and the store would miss
 * its tables for good. Releases add migrations in order; a store migrated by a build from between two changes
 * that landed out of order is the way to get here, and it is refused, named, rather than run half-made.
 */
const ensureNoneSkipped = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const table = yield* sql<{ readonly present: boolean }>`
    SELECT to_regclass('effect_sql_migrations') IS NOT NULL AS present`
  if (table[0]?.present !== true) return
  const rows = yield* sql<{ readonly migration_id: number }>`SELECT migration_id FROM effect_sql_migrations`
  const applied = new Set(rows.map((row) => Number(row.migration_id)))
  const latest = Math.max(0, ...applied)
  const skipped = Object.keys(migrationScripts).filter((name) => {
    const id = Number(name.slice(0, name.indexOf("_")))
    return id < latest && !applied.has(id)
  })
  if (skipped.length > 0) {
    return yield* new MigrationRefused({
      message: `This store lacks migration${skipped.length === 1 ? "" : "s"} ${skipped.join(", ")}, numbered below ` +
        `the latest it has applied (${latest}): it was migrated by a development build from between two changes, ` +
        "and the migrator never runs a migration below the latest. Use a new store (or DATA_DIR), or apply the " +
        "missing scripts by hand and record them in effect_sql_migrations."
    })
  }
})

/** Runs the pending migrations; returns the ones it ran as `[id, name]`. */
export const migrate = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* ensureWritable
  return yield* sql.withTransaction(
    Effect.andThen(
      sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`,
      Effect.andThen(ensureNoneSkipped, runMigrator({ loader: Migrator.fromRecord(migrations) }))
    )
  )
}).pipe(Effect.withSpan("migrate"))
