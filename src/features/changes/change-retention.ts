// What the retention sweep asks of the change feed, apart from the repository that answers it.

/** Deletes retired relationships retired before `cutoff`, `batch` at a time; answers how many. */
export interface ChangeRetention {
  purgeRetired(cutoff: string, batch: number): Promise<number>;
}
