/**
 * What an error means to a person. The API's messages are written for programs and may name a
 * route ("accept with POST /auth/acceptinvite"); a page shows these words instead, by the
 * error's code, and never a route.
 */
const BY_CODE: Record<string, string> = {
  TOKEN_USED: 'This link has already been used or has expired. Ask for a new one.',
  TOKEN_LOCKED: 'Too many wrong codes were tried with this link. Ask for a new one.',
  MISSING_TOKEN: 'This page needs the link from your e-mail. Open the e-mail and follow its link again.',
  INVALID_TOKEN: 'This link is not valid. Open the e-mail and follow its link again, or ask for a new one.',
  PASSWORD_ALREADY_SET: 'You already have a password. Accept the invitation without choosing a new one, or reset your password.',
  PASSWORD_REQUIRED: 'Choose a password to accept the invitation.',
  INVALID_CREDENTIALS: 'The e-mail or the password is wrong.',
  INVALID_CODE: 'The verification code is wrong.',
  EMAIL_MISMATCH: 'This e-mail address is not the one the reset was asked for.',
  ALREADY_MEMBER: 'This person is already a member of the workspace.',
  PLAN_LIMIT_REACHED: "The workspace's plan has no room for another member.",
  LAST_OWNER: 'The workspace needs at least one owner.',
  INSUFFICIENT_ROLE: 'Your role does not allow this.',
  INVITATION_PENDING: 'This person has not accepted the invitation yet.',
  NOT_AN_INVITATION: 'This person has already accepted the invitation.',
  RATE_LIMITED: 'Too many attempts. Wait a few minutes and try again.',
  WORKSPACE_SMTP_FAILED: "The workspace's own mail server did not take the e-mail.",
  FEATURE_REQUIRED: "The workspace's plan does not include this.",
};

/** A route named in a message ("POST /auth/acceptinvite", "GET /user/{id}"): never shown. */
const ROUTE = /\s*\(?\b(?:GET|POST|PUT|PATCH|DELETE)\s+\/\S*\)?/g;

export function peopleWords(code: string | undefined, message: string, status?: number): string {
  if (code && Object.hasOwn(BY_CODE, code)) return BY_CODE[code]!;
  if (status === 429) return BY_CODE.RATE_LIMITED!;
  const plain = message.replace(ROUTE, '').replace(/\s+([,.;:])/g, '$1').trim();
  return plain || 'Something went wrong. Please try again.';
}

/** Whether the code has its own words (its details, written for programs, are then not shown). */
export function explained(code: string | undefined): boolean {
  return !!code && Object.hasOwn(BY_CODE, code);
}
