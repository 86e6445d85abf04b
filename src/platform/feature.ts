// What a feature folder plugs into the service, and how one list of them becomes the container
// (after Backstage's backend modules and Unleash's per-feature factories). Each feature's module
// declares what it needs by the type of build()'s argument, the platform and what earlier features
// provide, named as the container names them; buildFeatures() builds the list in its order, and
// the compiler refuses a list in which a feature comes before what it needs or provides a name
// that another already does.
import type { Router } from 'express';

export interface Feature<Needs extends object, Provides extends object> {
  /** Its folder's name, for the logs. */
  name: string;
  /** Its services (named as the container names them), from the platform and earlier features'. */
  build(needs: Needs): Provides;
  /** Its routers, in the order they are tried. */
  routes?(services: Needs & Provides): Router[];
  /** Defines its jobs on the scheduler (before the scheduler starts). */
  jobs?(services: Needs & Provides): void;
  /** Starts a long-running part once the scheduler runs, and gives back its stop. */
  start?(services: Needs & Provides): Promise<(() => Promise<void>) | undefined>;
}

// Methods' parameters are compared both ways, so every feature is one of these.
type AnyFeature = Feature<never, object>;
type NeedsOf<F extends AnyFeature> = Parameters<F['build']>[0];
type ProvidesOf<F extends AnyFeature> = ReturnType<F['build']>;

/** The keys of `Needs` that `Have` lacks or gives with another type. */
type Unmet<Needs, Have> = { [K in keyof Needs]: K extends keyof Have ? (Have[K] extends Needs[K] ? never : K) : K }[keyof Needs];

/**
 * The list as given when each feature finds what it needs in `Have` (the platform and the features
 * before it) and provides no name that `Have` holds; a feature that does not stands as a message
 * of what it misses or repeats, which the compiler's error then quotes.
 */
type Checked<L extends readonly AnyFeature[], Have> = L extends readonly [infer F extends AnyFeature, ...infer Rest extends readonly AnyFeature[]]
  ? readonly [
      [Unmet<NeedsOf<F>, Have>, keyof ProvidesOf<F> & keyof Have] extends [never, never]
        ? F
        : `needs ${Unmet<NeedsOf<F>, Have> & string}, which no feature before it provides` | `provides ${keyof ProvidesOf<F> & keyof Have & string}, which a feature before it provides`,
      ...Checked<Rest, Have & ProvidesOf<F>>,
    ]
  : readonly [];

/** What the features of a list provide, together. */
export type ProvidedBy<L extends readonly AnyFeature[]> = L extends readonly [infer F extends AnyFeature, ...infer Rest extends readonly AnyFeature[]] ? ProvidesOf<F> & ProvidedBy<Rest> : unknown;

/** A feature as its module declares it, with its needs and services inferred from build(). */
export function defineFeature<Needs extends object, Provides extends object>(feature: Feature<Needs, Provides>): Feature<Needs, Provides> {
  return feature;
}

/** `base` with the services of each feature, built in the list's order. */
export function buildFeatures<Base extends object, const L extends readonly AnyFeature[]>(features: L & Checked<L, Base>, base: Base): Base & ProvidedBy<L> {
  const built: object = { ...base };
  for (const feature of features as readonly Feature<object, object>[]) Object.assign(built, feature.build(built));
  return built as Base & ProvidedBy<L>;
}
