// Every asset is found by its id: the uniqueness constraint also gives the index for lookups.
CREATE CONSTRAINT asset_id_unique IF NOT EXISTS FOR (a:Asset) REQUIRE a.id IS UNIQUE;
