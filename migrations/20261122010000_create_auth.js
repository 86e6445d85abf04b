// Principals of the service (users, their API tokens, integration keys), browser sessions, the
// login throttle and the audit trail. Tokens and keys are kept only as keyed hashes.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('users', (t) => {
    t.comment('People who sign in to the UI or hold API tokens');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('User id');
    t.string('username', 64).notNullable().comment('Sign-in name, unique without regard to case');
    t.string('display_name', 200).comment('Name shown in the UI');
    t.text('password_hash').notNullable().comment('argon2id hash of the password');
    t.specificType('roles', 'text[]').notNullable().defaultTo('{}').comment('Granted roles: ADMINISTRATOR, DISCOVERY_ADMIN, API_USER, VIEWER');
    t.boolean('disabled').notNullable().defaultTo(false).comment('A disabled user has no sessions and no working tokens');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When the user was created');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('Last change of the user');
    t.timestamp('last_login_at', { useTz: true }).comment('Last successful sign-in');
  });
  await knex.raw('CREATE UNIQUE INDEX users_username_lower_uq ON users (lower(username))');

  await knex.schema.createTable('api_tokens', (t) => {
    t.comment('User API tokens (svci_) and integration keys (svcm_), stored as keyed hashes');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Token id');
    t.string('kind', 20).notNullable().comment('USER_TOKEN or INTEGRATION_KEY');
    t.uuid('user_id').references('id').inTable('users').onDelete('CASCADE').comment('Owner of a user token; null for an integration key');
    t.string('name', 100).notNullable().comment('Name given at creation');
    t.string('token_hash', 64).notNullable().comment('HMAC-SHA-256 of the token under the token pepper');
    t.string('hint', 16).notNullable().comment('Prefix and first characters, to recognise a token in a list');
    t.uuid('created_by').comment('User who created it; null when created from the command line');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it was created');
    t.timestamp('expires_at', { useTz: true }).comment('When it stops working; null for never');
    t.timestamp('last_used_at', { useTz: true }).comment('Last request it authenticated (updated at most once a minute)');
    t.timestamp('revoked_at', { useTz: true }).comment('When it was revoked; null while valid');
    t.unique(['token_hash'], { indexName: 'api_tokens_token_hash_uq' });
    t.index(['user_id'], 'api_tokens_user_idx');
  });

  await knex.schema.createTable('http_sessions', (t) => {
    t.comment('Browser sessions (express-session through connect-pg-simple)');
    t.string('sid').primary().comment('Session id (the signed cookie value)');
    t.json('sess').notNullable().comment('Session data: user id, CSRF token, sign-in time');
    t.timestamp('expire', { precision: 6 }).notNullable().comment('End of the idle time-out');
    t.index(['expire'], 'http_sessions_expire_idx');
  });

  await knex.schema.createTable('login_throttle', (t) => {
    t.comment('Failed sign-ins counted per user name and per client address');
    t.string('key', 200).primary().comment('user:<lower-case name> or ip:<address>');
    t.integer('failures').notNullable().comment('Failures in the current window');
    t.timestamp('window_started_at', { useTz: true }).notNullable().comment('First failure of the window');
    t.timestamp('locked_until', { useTz: true }).comment('Sign-in refused until then');
  });

  await knex.schema.createTable('audit_events', (t) => {
    t.comment('Who did what, when and from where: authentication failures and every change to users, keys, tokens and credentials. Never a secret.');
    t.bigIncrements('id').comment('Event number');
    t.timestamp('occurred_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it happened');
    t.string('actor_kind', 20).notNullable().comment('USER, INTEGRATION_KEY, ANONYMOUS or SYSTEM');
    t.string('actor_id', 64).comment('User or key id');
    t.string('actor_name', 200).comment('User name or key name at the time');
    t.string('action', 64).notNullable().comment('What happened, e.g. auth.failure, user.create, credential.update');
    t.string('target_kind', 40).comment('Kind of the object acted on');
    t.string('target_id', 64).comment('Id of the object acted on');
    t.string('source_ip', 64).comment('Client address');
    t.jsonb('details').comment('Non-secret particulars (names of changed fields, reasons)');
    t.index(['occurred_at'], 'audit_events_occurred_at_idx');
    t.index(['action', 'occurred_at'], 'audit_events_action_idx');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('audit_events');
  await knex.schema.dropTable('login_throttle');
  await knex.schema.dropTable('http_sessions');
  await knex.schema.dropTable('api_tokens');
  await knex.schema.dropTable('users');
}
