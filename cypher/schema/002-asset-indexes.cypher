// Indexes behind the asset listing: each filter of GET /assets seeks one of them, the default
// order (displayName) is read from its index, and q searches searchText through a text index.
CREATE INDEX asset_type IF NOT EXISTS FOR (a:Asset) ON (a.assetType);
CREATE INDEX asset_category IF NOT EXISTS FOR (a:Asset) ON (a.assetCategory);
CREATE INDEX asset_status IF NOT EXISTS FOR (a:Asset) ON (a.status);
CREATE INDEX asset_site IF NOT EXISTS FOR (a:Asset) ON (a.site);
CREATE INDEX asset_environment IF NOT EXISTS FOR (a:Asset) ON (a.environment);
CREATE INDEX asset_display_name IF NOT EXISTS FOR (a:Asset) ON (a.displayName);
CREATE INDEX asset_last_seen IF NOT EXISTS FOR (a:Asset) ON (a.lastSeenAt);
CREATE INDEX asset_hostname IF NOT EXISTS FOR (a:Asset) ON (a.hostname);
CREATE INDEX asset_fqdn IF NOT EXISTS FOR (a:Asset) ON (a.fqdn);
CREATE INDEX asset_serial IF NOT EXISTS FOR (a:Asset) ON (a.serialNumber);
CREATE TEXT INDEX asset_search_text IF NOT EXISTS FOR (a:Asset) ON (a.searchText);
// The three-filter listing (type, site, environment together) seeks its rows at once.
CREATE INDEX asset_type_site_environment IF NOT EXISTS FOR (a:Asset) ON (a.assetType, a.site, a.environment);
// Incremental sync: GET /assets?updatedAfter= and the change feed (GET /changes) in change order.
CREATE INDEX asset_updated_at IF NOT EXISTS FOR (a:Asset) ON (a.updatedAt);
CREATE INDEX asset_change_seq IF NOT EXISTS FOR (a:Asset) ON (a.changeSeq);
