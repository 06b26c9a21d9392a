/**
 * A matcher's state as the set of places the bytes read so far may have reached, each place an
 * immutable value told apart by its key: stepping a byte steps every place, the places that step
 * make the next state (the same place reached twice is kept once), and the state's key is its
 * places' keys. What the tool-call and thinking matchers share; the JSON matcher's threads are
 * the same idea over its frames.
 * @module
 */

export interface PlaceSet<P> {
  readonly places: readonly P[];
  /** Made on first use. */
  key?: string;
}

/** The state of these places, each kept once. */
export function placeSet<P>(places: P[], keyOf: (place: P) => string): PlaceSet<P> {
  if (places.length <= 1) return { places };
  const seen = new Map<string, P>();
  for (const place of places) {
    const key = keyOf(place);
    if (!seen.has(key)) seen.set(key, place);
  }
  return { places: [...seen.values()] };
}

/** The state after `byte`, or undefined where no place steps. */
export function stepPlaces<P>(state: PlaceSet<P>, byte: number, feed: (place: P, byte: number, out: P[]) => void, keyOf: (place: P) => string): PlaceSet<P> | undefined {
  const out: P[] = [];
  for (const place of state.places) feed(place, byte, out);
  return out.length === 0 ? undefined : placeSet(out, keyOf);
}

export function placeSetKey<P>(state: PlaceSet<P>, keyOf: (place: P) => string): string {
  return (state.key ??= state.places.map(keyOf).join('|'));
}

/** Each place as a state of its own, where there are several: the places of a set are independent choices. */
export function splitPlaces<P>(state: PlaceSet<P>): PlaceSet<P>[] | undefined {
  return state.places.length > 1 ? state.places.map((place) => ({ places: [place] })) : undefined;
}
