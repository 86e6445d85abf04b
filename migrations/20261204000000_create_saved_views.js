// Saved views: a user's named shape of a list page (its filters, columns and sort), kept on the
// server so that it follows the user from browser to browser and opens for anyone given its link.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('saved_views', (t) => {
    t.comment('The saved shape of a list page of a user: filters, columns and sort');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('View id (the shared link names it)');
    t.uuid('owner_id').notNullable().references('id').inTable('users').onDelete('CASCADE').comment('The user who saved it and alone may change it');
    t.string('name', 100).notNullable().comment('Name, unique among the views of its owner of the same list');
    t.string('list', 32).notNullable().comment('The list it shapes: ASSETS or RELATIONSHIPS');
    t.jsonb('filters').notNullable().comment('The query parameters of the list, by name (a value as the query string holds it)');
    t.specificType('columns', 'text[]').notNullable().comment('The columns shown, in order');
    t.string('sort', 140).comment('The order, field,asc or field,desc; null for the list default');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it was saved');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it last changed');
    t.unique(['owner_id', 'list', 'name'], { indexName: 'saved_views_owner_list_name_uq' });
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('saved_views');
}
