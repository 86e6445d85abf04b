// The ANALYST role (reads of the inventory and read-only Cypher through POST /graph/query): roles
// are free text in users.roles, so only the column's comment changes. COMMENT takes no bound
// parameters: the texts are constants of this file.

const ROLES_BEFORE = 'Granted roles: ADMINISTRATOR, DISCOVERY_ADMIN, API_USER, VIEWER';
const ROLES_AFTER = 'Granted roles: ADMINISTRATOR, DISCOVERY_ADMIN, API_USER, ANALYST, VIEWER';

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`COMMENT ON COLUMN users.roles IS '${ROLES_AFTER}'`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw(`COMMENT ON COLUMN users.roles IS '${ROLES_BEFORE}'`);
}
