/**
 * Notes with semantic search and a chat that answers from the closest notes. The page starts the
 * local API once; everything else is the official OpenAI client against `/v1`, as it would be
 * against a hosted API.
 */
import OpenAI from 'openai';
import { startInference } from 'inpage-llm';
import { loadNotes, rank, saveNotes, type Note } from './notes.ts';

const EMBEDDING_MODEL = 'tiny-embed';
const CHAT_MODEL = 'tiny-chat';

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!;
const status = $('#status');

await startInference({ preload: [EMBEDDING_MODEL, CHAT_MODEL] });
const client = new OpenAI({ baseURL: new URL('/v1', location.origin).href, apiKey: 'local', dangerouslyAllowBrowser: true });
status.textContent = 'Ready (offline capable).';
document.body.dataset.ready = 'true';

let notes = loadNotes();

async function embed(texts: string[]): Promise<number[][]> {
  const response = await client.embeddings.create({ model: EMBEDDING_MODEL, input: texts });
  return response.data.map((d) => d.embedding);
}

function renderNotes(): void {
  $('#notes').replaceChildren(...notes.map((note) => Object.assign(document.createElement('li'), { textContent: note.text })));
}

async function search(query: string): Promise<{ note: Note; score: number }[]> {
  const [vector] = await embed([query]);
  return rank(notes, vector!);
}

$('#add').addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = $<HTMLTextAreaElement>('#note').value.trim();
  if (!text) return;
  const [vector] = await embed([text]);
  notes = [...notes, { text, vector: vector! }];
  saveNotes(notes);
  $<HTMLTextAreaElement>('#note').value = '';
  renderNotes();
});

$('#search').addEventListener('submit', async (event) => {
  event.preventDefault();
  const ranked = await search($<HTMLInputElement>('#query').value);
  $('#results').replaceChildren(
    ...ranked.map(({ note, score }) => {
      const item = Object.assign(document.createElement('li'), { textContent: note.text });
      item.append(Object.assign(document.createElement('span'), { className: 'score', textContent: score.toFixed(3) }));
      return item;
    }),
  );
});

$('#ask').addEventListener('submit', async (event) => {
  event.preventDefault();
  const question = $<HTMLInputElement>('#question').value;
  const context = (await search(question)).slice(0, 2).map(({ note }) => `- ${note.text}`);
  const answer = $('#answer');
  answer.textContent = '';
  const stream = await client.chat.completions.create({
    model: CHAT_MODEL,
    stream: true,
    max_tokens: 64,
    messages: [
      { role: 'system', content: `Answer from these notes:\n${context.join('\n')}` },
      { role: 'user', content: question },
    ],
  });
  for await (const chunk of stream) answer.textContent += chunk.choices[0]?.delta.content ?? '';
  answer.dataset.done = 'true';
});

renderNotes();
