// A credential is offered to every address its match patterns cover that answers, a rogue host
// too: a pattern wider than service.credentials.broad-match-ipv4-prefix or -ipv6-prefix, or a host
// name pattern that leaves the domain open, now needs this flag set by someone who means it.
// Credentials kept before take false: discovery no longer offers them by such a pattern until an
// update sets the flag.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('credentials', (t) => {
    t.boolean('allow_broad_match').notNullable().defaultTo(false).comment('Whether its match patterns may be broad (wider than the service\'s broad-match settings)');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('credentials', (t) => {
    t.dropColumn('allow_broad_match');
  });
}
