import { describe, expect, it } from 'vitest';
import { MAX_SUBJECT, tooLong } from './check-commit-subjects.ts';

describe('check-commit-subjects', () => {
  it('passes subjects up to the limit and names those past it, counting characters, not bytes', () => {
    const atLimit = 'x'.repeat(MAX_SUBJECT);
    const cjk = '模'.repeat(MAX_SUBJECT);
    expect(tooLong([atLimit, cjk, 'Short subject'])).toEqual([]);
    expect(tooLong([`${atLimit}y`])).toEqual([`${MAX_SUBJECT + 1}: ${atLimit}y`]);
  });
});
