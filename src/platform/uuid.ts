/** A UUID as the stores hold one: 32 hex digits grouped 8-4-4-4-12, in either case, nothing around it (no urn:uuid: prefix). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
