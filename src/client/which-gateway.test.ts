import { describe, expect, it } from 'vitest';
import { createGateway } from '../gateway/create-gateway.ts';
import { ScriptedEngine } from '../../test/support/scripted-engine.ts';
import { answeringGateway, answersInPage } from './which-gateway.ts';

describe('which gateway answers a fetch', () => {
  const gateway = createGateway({ engine: new ScriptedEngine(), baseUrl: '/v1' });
  const route = (url: string, throughShim: boolean) => answeringGateway(url, { handles: gateway.handles, throughShim });

  it("a fetch through the page's shim under the base URL: the page's gateway", () => {
    expect(route('https://app.test/v1/chat/completions', true)).toBe('page');
  });

  it('one under the base URL that does not go through the shim: the service worker', () => {
    expect(route('https://app.test/v1/models', false)).toBe('service-worker');
  });

  it('one outside the base URL: neither, whoever makes it', () => {
    expect(route('https://app.test/index.html', true)).toBe('none');
    expect(route('https://app.test/v2/models', false)).toBe('none');
  });

  it('startInference answers in the page unless told inPage: false', () => {
    expect(answersInPage({})).toBe(true);
    expect(answersInPage({ inPage: true })).toBe(true);
    expect(answersInPage({ inPage: false })).toBe(false);
  });
});
