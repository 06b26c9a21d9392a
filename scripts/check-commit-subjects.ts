/**
 * Fails when a commit subject runs past 72 characters, so `git log --oneline` stays readable and
 * the why goes in the body. Run by `npm run typecheck`. Commits before the rule are left as they
 * are (their subjects ran to 200+ characters): the check starts after `SINCE`. Where there is no
 * git history to read (an unpacked tarball, a shallow clone without that commit), it says so and
 * passes.
 * @module
 */
import { execFileSync } from 'node:child_process';

/** The last commit before the rule: every later subject is checked. */
export const SINCE = 'a657669';
export const MAX_SUBJECT = 72;

/** The subjects that are too long, each with its length. */
export function tooLong(subjects: readonly string[], max = MAX_SUBJECT): string[] {
  return subjects.filter((s) => [...s].length > max).map((s) => `${[...s].length}: ${s}`);
}

function subjectsSince(since: string): string[] | undefined {
  try {
    execFileSync('git', ['cat-file', '-e', `${since}^{commit}`], { stdio: 'ignore' });
    return execFileSync('git', ['log', '--format=%s', `${since}..HEAD`], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return undefined;
  }
}

if (import.meta.main) {
  const subjects = subjectsSince(SINCE);
  if (!subjects) {
    console.log(`check-commit-subjects: no git history with ${SINCE} here; nothing to check`);
  } else {
    const long = tooLong(subjects);
    if (long.length) {
      console.error(`check-commit-subjects: ${long.length} subject(s) over ${MAX_SUBJECT} characters (say the what; put the why in the body):\n${long.join('\n')}`);
      process.exit(1);
    }
    console.log(`check-commit-subjects: ${subjects.length} subjects, none over ${MAX_SUBJECT} characters`);
  }
}
