/** The notes, kept in localStorage with each note's embedding (computed once per text). */
export interface Note {
  readonly text: string;
  readonly vector: number[];
}

const KEY = 'notes';

export function loadNotes(): Note[] {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? '[]') as Note[];
  } catch {
    return [];
  }
}

export function saveNotes(notes: readonly Note[]): void {
  localStorage.setItem(KEY, JSON.stringify(notes));
}

/** Notes by cosine similarity to the query vector (the API returns unit vectors: a dot product). */
export function rank(notes: readonly Note[], query: readonly number[]): { note: Note; score: number }[] {
  return notes
    .map((note) => ({ note, score: note.vector.reduce((sum, v, i) => sum + v * (query[i] ?? 0), 0) }))
    .sort((a, b) => b.score - a.score);
}
