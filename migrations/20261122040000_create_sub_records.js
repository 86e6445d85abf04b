// Sub-records of assets (spec 2.8-2.12, 8): installed software packages and discovered services
// (upserted by asset and name, first_seen_at kept across upgrades), running processes (replaced
// wholesale at each credentialed observation), network interfaces, and the connections between
// interfaces derived from LLDP/CDP neighbours and switch forwarding tables.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('software_packages', (t) => {
    t.comment('Packages installed on an asset; one row per (asset, package name), kept across upgrades');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Stable id (the synthesized SOFTWARE_PACKAGE asset id)');
    t.uuid('asset_id').notNullable().comment('Host asset (Neo4j Asset.id)');
    t.string('package_name', 512).notNullable().comment('Package name');
    t.string('version', 256).comment('Installed version');
    t.string('publisher', 512).comment('Publisher or vendor');
    t.date('install_date').comment('Install date');
    t.string('package_manager', 32).comment('dpkg, rpm, apk, snap, brew, msi, winget, ...');
    t.string('source', 100).notNullable().comment('What observed it last (connector or import source)');
    t.timestamp('first_seen_at', { useTz: true }).notNullable().comment('First observation; stable across upgrades');
    t.timestamp('last_seen_at', { useTz: true }).notNullable().comment('Latest observation (retention counts from it)');
    t.unique(['asset_id', 'package_name'], { indexName: 'software_packages_asset_name_uq' });
    t.index(['package_name'], 'software_packages_name_idx');
    t.index(['last_seen_at'], 'software_packages_last_seen_idx');
  });

  await knex.schema.createTable('running_processes', (t) => {
    t.comment('Processes running on an asset at its latest credentialed observation (replaced wholesale)');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Row id (the synthesized RUNNING_PROCESS asset id)');
    t.uuid('asset_id').notNullable().comment('Host asset');
    t.integer('pid').notNullable().comment('Process id');
    t.integer('ppid').comment('Parent process id');
    t.string('process_name', 512).notNullable().comment('Executable name');
    t.string('command_line', 4096).comment('Command line, truncated to this column');
    t.string('username', 256).comment('Owner');
    t.string('state', 32).comment('Run state as the operating system reports it');
    t.bigInteger('memory_kb').comment('Resident memory in KB');
    t.decimal('cpu_percent', 7, 2).comment('CPU percent at sample time');
    t.string('source_connector', 32).comment('SSH, WINRM, IMPORT, ...');
    t.uuid('software_asset_id').comment('SOFTWARE asset the process belongs to, when matched');
    t.timestamp('observed_at', { useTz: true }).notNullable().comment('The observation that reported it');
    t.index(['asset_id', 'pid'], 'running_processes_asset_pid_idx');
  });

  await knex.schema.createTable('discovered_services', (t) => {
    t.comment('Services of an asset; one row per (asset, service name), kept across observations');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Stable id (the synthesized DISCOVERED_SERVICE asset id)');
    t.uuid('asset_id').notNullable().comment('Host asset');
    t.string('service_name', 512).notNullable().comment('Service name');
    t.string('display_name', 512).comment('Display name');
    t.string('state', 32).comment('running, stopped, active, ...');
    t.string('start_mode', 32).comment('auto, manual, disabled');
    t.jsonb('listen_ports').notNullable().defaultTo('[]').comment('Array of { protocol, port } it listens on');
    t.string('source_connector', 32).comment('SSH, WINRM, IMPORT, ...');
    t.timestamp('first_seen_at', { useTz: true }).notNullable().comment('First observation');
    t.timestamp('last_seen_at', { useTz: true }).notNullable().comment('Latest observation (retention counts from it)');
    t.unique(['asset_id', 'service_name'], { indexName: 'discovered_services_asset_name_uq' });
    t.index(['last_seen_at'], 'discovered_services_last_seen_idx');
  });

  await knex.schema.createTable('network_interfaces', (t) => {
    t.comment('Network interfaces of an asset; one row per (asset, interface name)');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Stable id (the synthesized INTERFACE asset id)');
    t.uuid('asset_id').notNullable().comment('Asset that has the interface');
    t.string('name', 256).notNullable().comment('Interface name (ifName), e.g. eth0, Gi1/0/5');
    t.integer('if_index').comment('ifIndex');
    t.string('mac_address', 17).comment('MAC, lower case with colons');
    t.specificType('ip_addresses', 'text[]').notNullable().defaultTo('{}').comment('Addresses on the interface (CIDR notation where known)');
    t.integer('speed_mbps').comment('Speed');
    t.string('oper_status', 16).comment('up, down, ...');
    t.integer('mtu').comment('MTU');
    t.string('description', 512).comment('ifAlias or description');
    t.timestamp('first_seen_at', { useTz: true }).notNullable().comment('First observation');
    t.timestamp('last_seen_at', { useTz: true }).notNullable().comment('Latest observation');
    t.unique(['asset_id', 'name'], { indexName: 'network_interfaces_asset_name_uq' });
    t.index(['mac_address'], 'network_interfaces_mac_idx');
  });

  await knex.schema.createTable('interface_connections', (t) => {
    t.comment('A link between two interfaces of different assets, per evidence source (spec 2.12)');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Connection id');
    t.uuid('source_interface_id').notNullable().references('id').inTable('network_interfaces').onDelete('CASCADE').comment('Interface that reported it (the switch port for FDB)');
    t.uuid('target_interface_id').notNullable().references('id').inTable('network_interfaces').onDelete('CASCADE').comment('Interface at the other end');
    t.string('discovered_via', 8).notNullable().comment('LLDP, CDP or FDB');
    t.decimal('confidence', 3, 2).notNullable().comment('1.00 for LLDP/CDP (both ports known), 0.90 for FDB (L2 reachability)');
    t.timestamp('first_seen_at', { useTz: true }).notNullable().comment('First observation');
    t.timestamp('last_seen_at', { useTz: true }).notNullable().comment('Latest observation');
    t.unique(['source_interface_id', 'target_interface_id', 'discovered_via'], { indexName: 'interface_connections_uq' });
    t.index(['target_interface_id'], 'interface_connections_target_idx');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('interface_connections');
  await knex.schema.dropTable('network_interfaces');
  await knex.schema.dropTable('discovered_services');
  await knex.schema.dropTable('running_processes');
  await knex.schema.dropTable('software_packages');
}
