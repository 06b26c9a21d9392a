/**
 * Small English word lists the tiny vocabularies are built from, so ordinary sentences tokenize to
 * real word pieces and generated text reads as words.
 * @module
 */

/** Words the chat model may generate (each becomes one " word" token). */
export const STORY_WORDS: readonly string[] = [
  'the', 'a', 'cat', 'dog', 'sun', 'moon', 'tree', 'river', 'small', 'big', 'red', 'blue', 'green',
  'happy', 'quiet', 'runs', 'sleeps', 'sings', 'jumps', 'over', 'under', 'and', 'with', 'near',
  'little', 'bright', 'old', 'new', 'house', 'garden', 'bird', 'fish', 'light', 'rain', 'wind', 'sky',
  'sea', 'stone', 'road', 'day', 'night', 'morning', 'warm', 'cold', 'soft', 'slow', 'fast', 'walks',
  'looks', 'finds', 'makes', 'sees', 'song', 'story', 'friend', 'world', 'time', 'home', 'good',
  'kind', 'very', 'always', 'often', 'here',
];

/** Common words people type into prompts, added to the embedding vocabulary. */
export const PROMPT_WORDS: readonly string[] = [
  'hello', 'hi', 'how', 'are', 'you', 'is', 'this', 'that', 'what', 'who', 'why', 'when', 'where',
  'i', 'we', 'they', 'it', 'he', 'she', 'my', 'your', 'of', 'to', 'in', 'on', 'for', 'at', 'by', 'from',
  'be', 'was', 'were', 'have', 'has', 'do', 'does', 'not', 'no', 'yes', 'can', 'will', 'an', 'or',
  'but', 'so', 'if', 'all', 'one', 'two', 'three', 'like', 'love', 'eat', 'food', 'car', 'book',
  'read', 'write', 'code', 'computer', 'weather', 'today', 'please', 'thank', 'thanks', 'model',
  'text', 'word', 'question', 'answer', 'embedding', 'vector', 'search', 'city', 'paris', 'france',
  'capital', 'apple', 'banana', 'fruit', 'water', 'music', 'play', 'game', 'work', 'people',
];

/** WordPiece continuation pieces beyond single letters. */
export const SUFFIXES: readonly string[] = ['s', 'es', 'ed', 'ing', 'ly', 'er', 'est', 'ion', 'ness', 'ful'];
