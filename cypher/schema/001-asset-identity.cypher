// Every asset is found by its id: the uniqueness constraint also gives the index for lookups.
CREATE CONSTRAINT asset_id_unique IF NOT EXISTS FOR (a:Asset) REQUIRE a.id IS UNIQUE;
// The change counter (one node, cypher/changes/_next-seq.cypher): unique, so that concurrent first writes make one.
CREATE CONSTRAINT change_counter_name IF NOT EXISTS FOR (c:ChangeCounter) REQUIRE c.name IS UNIQUE;
