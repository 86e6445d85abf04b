// Indexes behind GET /relationships: per relationship type, its id (the list's order, read as a
// keyset seek) and its active flag (the active total is the count store's total minus the few
// inactive ones). Neo4j indexes relationship properties per type.
CREATE INDEX rel_runs_on_id IF NOT EXISTS FOR ()-[r:RUNS_ON]-() ON (r.id);
CREATE INDEX rel_hosts_vm_id IF NOT EXISTS FOR ()-[r:HOSTS_VM]-() ON (r.id);
CREATE INDEX rel_hosts_container_id IF NOT EXISTS FOR ()-[r:HOSTS_CONTAINER]-() ON (r.id);
CREATE INDEX rel_managed_by_id IF NOT EXISTS FOR ()-[r:MANAGED_BY]-() ON (r.id);
CREATE INDEX rel_contains_id IF NOT EXISTS FOR ()-[r:CONTAINS]-() ON (r.id);
CREATE INDEX rel_uses_datastore_id IF NOT EXISTS FOR ()-[r:USES_DATASTORE]-() ON (r.id);
CREATE INDEX rel_has_interface_id IF NOT EXISTS FOR ()-[r:HAS_INTERFACE]-() ON (r.id);
CREATE INDEX rel_communicates_with_id IF NOT EXISTS FOR ()-[r:COMMUNICATES_WITH]-() ON (r.id);
CREATE INDEX rel_runs_on_active IF NOT EXISTS FOR ()-[r:RUNS_ON]-() ON (r.active);
CREATE INDEX rel_hosts_vm_active IF NOT EXISTS FOR ()-[r:HOSTS_VM]-() ON (r.active);
CREATE INDEX rel_hosts_container_active IF NOT EXISTS FOR ()-[r:HOSTS_CONTAINER]-() ON (r.active);
CREATE INDEX rel_managed_by_active IF NOT EXISTS FOR ()-[r:MANAGED_BY]-() ON (r.active);
CREATE INDEX rel_contains_active IF NOT EXISTS FOR ()-[r:CONTAINS]-() ON (r.active);
CREATE INDEX rel_uses_datastore_active IF NOT EXISTS FOR ()-[r:USES_DATASTORE]-() ON (r.active);
CREATE INDEX rel_has_interface_active IF NOT EXISTS FOR ()-[r:HAS_INTERFACE]-() ON (r.active);
CREATE INDEX rel_communicates_with_active IF NOT EXISTS FOR ()-[r:COMMUNICATES_WITH]-() ON (r.active);
// Per relationship type, for incremental sync: retiredAt (retired edges, kept for the change feed,
// are counted out of the totals), updatedAt (?updatedAfter=) and changeSeq (GET /changes).
CREATE INDEX rel_runs_on_retired_at IF NOT EXISTS FOR ()-[r:RUNS_ON]-() ON (r.retiredAt);
CREATE INDEX rel_hosts_vm_retired_at IF NOT EXISTS FOR ()-[r:HOSTS_VM]-() ON (r.retiredAt);
CREATE INDEX rel_hosts_container_retired_at IF NOT EXISTS FOR ()-[r:HOSTS_CONTAINER]-() ON (r.retiredAt);
CREATE INDEX rel_managed_by_retired_at IF NOT EXISTS FOR ()-[r:MANAGED_BY]-() ON (r.retiredAt);
CREATE INDEX rel_contains_retired_at IF NOT EXISTS FOR ()-[r:CONTAINS]-() ON (r.retiredAt);
CREATE INDEX rel_uses_datastore_retired_at IF NOT EXISTS FOR ()-[r:USES_DATASTORE]-() ON (r.retiredAt);
CREATE INDEX rel_has_interface_retired_at IF NOT EXISTS FOR ()-[r:HAS_INTERFACE]-() ON (r.retiredAt);
CREATE INDEX rel_communicates_with_retired_at IF NOT EXISTS FOR ()-[r:COMMUNICATES_WITH]-() ON (r.retiredAt);
CREATE INDEX rel_runs_on_updated_at IF NOT EXISTS FOR ()-[r:RUNS_ON]-() ON (r.updatedAt);
CREATE INDEX rel_hosts_vm_updated_at IF NOT EXISTS FOR ()-[r:HOSTS_VM]-() ON (r.updatedAt);
CREATE INDEX rel_hosts_container_updated_at IF NOT EXISTS FOR ()-[r:HOSTS_CONTAINER]-() ON (r.updatedAt);
CREATE INDEX rel_managed_by_updated_at IF NOT EXISTS FOR ()-[r:MANAGED_BY]-() ON (r.updatedAt);
CREATE INDEX rel_contains_updated_at IF NOT EXISTS FOR ()-[r:CONTAINS]-() ON (r.updatedAt);
CREATE INDEX rel_uses_datastore_updated_at IF NOT EXISTS FOR ()-[r:USES_DATASTORE]-() ON (r.updatedAt);
CREATE INDEX rel_has_interface_updated_at IF NOT EXISTS FOR ()-[r:HAS_INTERFACE]-() ON (r.updatedAt);
CREATE INDEX rel_communicates_with_updated_at IF NOT EXISTS FOR ()-[r:COMMUNICATES_WITH]-() ON (r.updatedAt);
CREATE INDEX rel_runs_on_change_seq IF NOT EXISTS FOR ()-[r:RUNS_ON]-() ON (r.changeSeq);
CREATE INDEX rel_hosts_vm_change_seq IF NOT EXISTS FOR ()-[r:HOSTS_VM]-() ON (r.changeSeq);
CREATE INDEX rel_hosts_container_change_seq IF NOT EXISTS FOR ()-[r:HOSTS_CONTAINER]-() ON (r.changeSeq);
CREATE INDEX rel_managed_by_change_seq IF NOT EXISTS FOR ()-[r:MANAGED_BY]-() ON (r.changeSeq);
CREATE INDEX rel_contains_change_seq IF NOT EXISTS FOR ()-[r:CONTAINS]-() ON (r.changeSeq);
CREATE INDEX rel_uses_datastore_change_seq IF NOT EXISTS FOR ()-[r:USES_DATASTORE]-() ON (r.changeSeq);
CREATE INDEX rel_has_interface_change_seq IF NOT EXISTS FOR ()-[r:HAS_INTERFACE]-() ON (r.changeSeq);
CREATE INDEX rel_communicates_with_change_seq IF NOT EXISTS FOR ()-[r:COMMUNICATES_WITH]-() ON (r.changeSeq);
