import { describe, expect, it } from 'vitest';
import { redactHeaders } from './redact-headers.ts';

describe('redactHeaders', () => {
  it('shows a Bearer key as its first 3 and last 4 characters, keeping the scheme', () => {
    expect(redactHeaders({ authorization: 'Bearer sk-local-abcdefgh1234' })).toEqual({ authorization: 'Bearer sk-***1234' });
    expect(redactHeaders({ Authorization: 'bearer   sk-local-abcdefgh1234  ' })).toEqual({ Authorization: 'bearer sk-***1234' });
  });

  it('redacts every header that carries a credential, whatever its case, and hides short keys whole', () => {
    const shown = redactHeaders({
      'x-api-key': 'sk-ant-local-key-9876',
      'API-Key': 'azure-style-key-5555',
      'proxy-authorization': 'Basic dXNlcjpwYXNzd29yZA==',
      'x-auth-token': 'tok-1234567890',
      authorization: 'Bearer k1',
    });
    expect(shown).toEqual({
      'x-api-key': 'sk-***9876',
      'API-Key': 'azu***5555',
      'proxy-authorization': 'Basic dXN***ZA==',
      'x-auth-token': 'tok***7890',
      authorization: 'Bearer ***',
    });
    for (const secret of ['sk-ant-local-key-9876', 'azure-style-key-5555', 'dXNlcjpwYXNzd29yZA==', 'tok-1234567890']) expect(JSON.stringify(shown)).not.toContain(secret);
  });

  it('leaves other headers as they were sent', () => {
    const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-request-keyword': 'kept' };
    expect(redactHeaders(headers)).toEqual(headers);
  });
});
