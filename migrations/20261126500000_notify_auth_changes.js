// A NOTIFY on the channel auth_changes whenever what a token authenticates as may change: a token
// revoked, re-dated, re-assigned or deleted (or the table emptied), a user renamed, re-roled, disabled or deleted. Each
// API process keeps the tokens it has seen (TokenLookupCache) only while it hears these, so a
// change made anywhere (another process, or SQL by hand) is seen by every process at once. The
// minute-by-minute last_used_at stamp is not such a change and notifies nothing.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`
    CREATE FUNCTION notify_auth_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('auth_changes', TG_TABLE_NAME);
      RETURN NULL;
    END $$`);
  await knex.raw(`COMMENT ON FUNCTION notify_auth_changes() IS 'Tells listening API processes that cached token lookups are out of date'`);
  await knex.raw(`
    CREATE TRIGGER api_tokens_notify_auth_changes
      AFTER UPDATE OF revoked_at, expires_at, user_id, token_hash, kind OR DELETE OR TRUNCATE ON api_tokens
      FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changes()`);
  await knex.raw(`
    CREATE TRIGGER users_notify_auth_changes
      AFTER UPDATE OF username, roles, disabled OR DELETE OR TRUNCATE ON users
      FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changes()`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP TRIGGER users_notify_auth_changes ON users');
  await knex.raw('DROP TRIGGER api_tokens_notify_auth_changes ON api_tokens');
  await knex.raw('DROP FUNCTION notify_auth_changes()');
}
