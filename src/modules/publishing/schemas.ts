/** Request and answer schemas of the publishing routes (docs/publishing.md). */
import { CurrencyCode, DateIn, Int32, Money, PageQuery, Pagination, Percent, Share, Strict, Text, Type, Uuid } from '../../http/schema';
import { sortQuery } from '../../http/list-sort';
import { AGREEMENT_SORT, CLAIM_SORT, PUBLISHER_SORT, REGISTRATION_SORT, WORK_SORT, WRITER_SORT } from './sorts';
import { SOCIETY_CODES } from './cwr/societies';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const lit = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));
const Dec = Type.String({ description: 'decimal string' });
const Stamp = Type.String({ format: 'date-time' });

export const WRITER_ROLES = ['composer', 'lyricist', 'composer_lyricist', 'arranger', 'adapter', 'translator'] as const;
export const PUBLISHER_ROLES = ['original', 'administrator', 'sub_publisher'] as const;
export const TITLE_TYPES = ['AT', 'TE', 'FT', 'IT', 'OT', 'TT', 'PT', 'RT', 'ET', 'OL', 'AL'] as const;
export const AGREEMENT_STATUSES = ['draft', 'pending', 'active', 'expired', 'terminated'] as const;
export const REGISTRATION_STATUSES = ['pending', 'queued', 'submitted', 'registered', 'rejected'] as const;
export const CLAIM_STATUSES = ['open', 'disputed', 'resolved', 'withdrawn'] as const;
export const CLAIM_RIGHTS = ['performance', 'mechanical', 'all'] as const;

const Society = Type.String({ enum: SOCIETY_CODES as string[], description: 'rights society code (PRS, ASCAP, BMI, …; docs/publishing.md)' });
const Ipi = Type.String({ pattern: '^[0-9]{1,11}$', maxLength: 11, description: 'IPI name number: 11 digits with valid check digits (shorter forms are zero-padded)' });

// ---------------------------------------------------------------- writers and publishers
const Party = {
  ipi: Type.Optional(Nullable(Ipi)),
  society: Type.Optional(Nullable(Society)),
  controlled: Type.Optional(Type.Boolean({ description: 'represented by this workspace (SWR/SPU in CWR); default true' })),
  user: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'the workspace member who is paid for this party' }))),
};
export const WriterBody = Strict({ firstName: Type.Optional(Nullable(Text(30))), lastName: Text(45, { minLength: 1 }), ...Party });
export const WriterPatch = Type.Partial(WriterBody, { additionalProperties: false });
export const PublisherBody = Strict({ name: Text(45, { minLength: 1 }), ...Party });
export const PublisherPatch = Type.Partial(PublisherBody, { additionalProperties: false });
const partyFilters = { society: Type.Optional(Society), controlled: Type.Optional(Type.Boolean()) };
export const WriterListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(WRITER_SORT, 'lastName', 'Part of the name, or the exact IPI'), ...partyFilters });
export const PublisherListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(PUBLISHER_SORT, 'name', 'Part of the name, or the exact IPI'), ...partyFilters });

const PartyView = {
  id: Uuid, code: Type.String(), ipi: Nullable(Type.String()), society: Nullable(Type.String()), controlled: Type.Boolean(), user: Nullable(Uuid), createdAt: Stamp, updatedAt: Stamp,
};
export const WriterView = Type.Object({ ...PartyView, firstName: Nullable(Type.String()), lastName: Type.String() });
export const PublisherView = Type.Object({ ...PartyView, name: Type.String() });

// ---------------------------------------------------------------- works
const SideSplit = Strict({ writers: Percent(), publishers: Percent() });
export const WorkBody = Strict({
  title: Text(200, { minLength: 1 }),
  iswc: Type.Optional(Nullable(Type.String({ maxLength: 20, description: 'ISWC, T-034.524.680-1 or T0345246801; the check digit is verified' }))),
  code: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{1,14}$', maxLength: 14, description: 'submitter work number in CWR; RW + 12 digits unless given' })),
  language: Type.Optional(Nullable(Type.String({ pattern: '^[A-Za-z]{2}$', maxLength: 2, description: 'ISO 639-1' }))),
  duration: Type.Optional(Nullable(Int32({ minimum: 0, maximum: 359_999 }))),
  alternateTitles: Type.Optional(Type.Array(Strict({ title: Text(200, { minLength: 1 }), type: Type.Optional(lit(TITLE_TYPES)), language: Type.Optional(Nullable(Type.String({ pattern: '^[A-Za-z]{2}$', maxLength: 2 }))) }), { maxItems: 50 })),
  writers: Type.Array(Strict({
    writer: Uuid, role: lit(WRITER_ROLES), share: Share(),
    publisher: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'the publisher representing this writer on the work (one of the work\'s publishers)' }))),
  }), { minItems: 1, maxItems: 50 }),
  publishers: Type.Optional(Type.Array(Strict({ publisher: Uuid, share: Share(), role: Type.Optional(lit(PUBLISHER_ROLES)) }), { maxItems: 20 })),
  performanceSplit: Type.Optional(SideSplit),
  mechanicalSplit: Type.Optional(SideSplit),
  recordings: Type.Optional(Type.Array(Uuid, { maxItems: 200 })),
});
export const WorkPatch = Type.Partial(WorkBody, { additionalProperties: false });
export const WorkListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(WORK_SORT, 'title', 'Part of the title or an alternate title'), writer: Type.Optional(Uuid), publisher: Type.Optional(Uuid), iswc: Type.Optional(Type.String({ maxLength: 20 })) });

const SplitView = Type.Object({ writers: Dec, publishers: Dec });
export const WorkView = Type.Object({
  id: Uuid, code: Type.String(), title: Type.String(), iswc: Nullable(Type.String({ description: 'T-034.524.680-1' })), language: Nullable(Type.String()), duration: Nullable(Type.Integer()),
  alternateTitles: Type.Array(Type.Object({ title: Type.String(), type: Type.String(), language: Nullable(Type.String()) })),
  writers: Type.Array(Type.Object({ writer: Uuid, name: Type.String(), ipi: Nullable(Type.String()), role: Type.String(), share: Dec, performanceShare: Dec, mechanicalShare: Dec, publisher: Nullable(Uuid) })),
  publishers: Type.Array(Type.Object({ publisher: Uuid, name: Type.String(), ipi: Nullable(Type.String()), role: Type.String(), share: Dec, performanceShare: Dec, mechanicalShare: Dec })),
  performanceSplit: SplitView, mechanicalSplit: SplitView, recordings: Type.Array(Uuid), createdAt: Stamp, updatedAt: Stamp,
});
export const BulkWorksAnswer = Type.Object({
  message: Type.String(), created: Type.Array(Type.String()), ids: Type.Array(Uuid), processedCount: Type.Integer(), errors: Type.Array(Type.String()),
});

// ---------------------------------------------------------------- agreements
const Territory = Type.String({ pattern: '^([A-Z]{2}|WORLD)$', maxLength: 5, description: 'ISO 3166-1 alpha-2 code, or WORLD' });
export const AgreementBody = Strict({
  publisher: Uuid, writer: Uuid, territories: Type.Array(Territory, { minItems: 1, maxItems: 250 }), startDate: DateIn(), endDate: Type.Optional(Nullable(DateIn())),
  writerShare: Share(), advance: Type.Optional(Nullable(Money())), currency: Type.Optional(Nullable(CurrencyCode())),
});
export const AgreementPatch = Type.Partial(AgreementBody, { additionalProperties: false });
export const AgreementStatusBody = Strict({ status: lit(AGREEMENT_STATUSES) });
export const AgreementListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(AGREEMENT_SORT, 'createdAt', "Part of the writer's or the publisher's name"), writer: Type.Optional(Uuid), publisher: Type.Optional(Uuid), status: Type.Optional(lit(AGREEMENT_STATUSES)) });
export const AgreementView = Type.Object({
  id: Uuid, publisher: Uuid, writer: Uuid, territories: Type.Array(Type.String()), startDate: Type.String({ format: 'date' }), endDate: Nullable(Type.String({ format: 'date' })),
  writerShare: Dec, advance: Nullable(Dec), currency: Nullable(Type.String()), status: lit(AGREEMENT_STATUSES), statusChangedAt: Nullable(Stamp), createdAt: Stamp, updatedAt: Stamp,
});

// ---------------------------------------------------------------- registrations and claims
export const RegistrationBody = Strict({ work: Uuid, society: Society });
export const RegistrationListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(REGISTRATION_SORT, 'createdAt', "Part of the work's title, the society's work id or the message"), work: Type.Optional(Uuid), society: Type.Optional(Society), status: Type.Optional(lit(REGISTRATION_STATUSES)) });
export const ExportQuery = Type.Object({
  format: lit(['cwr21', 'cwr22'] as const),
  society: Type.Optional(Society),
  sender: Type.Optional(Type.String({ format: 'uuid', description: 'the controlled publisher sending the file (default: the oldest controlled publisher with an IPI)' })),
});
export const AckBody = Strict({ content: Type.String({ minLength: 1, maxLength: 20_000_000, description: 'the acknowledgement file (CWR ACK), as text' }) });
export const RegistrationView = Type.Object({
  id: Uuid, work: Uuid, workTitle: Type.String(), society: Type.String(), status: lit(REGISTRATION_STATUSES), transactionType: Nullable(Type.String()), submission: Nullable(Uuid),
  transactionSeq: Nullable(Type.Integer()), societyWorkId: Nullable(Type.String()), message: Nullable(Type.String()), queuedAt: Nullable(Stamp), submittedAt: Nullable(Stamp),
  acknowledgedAt: Nullable(Stamp), createdAt: Stamp, updatedAt: Stamp,
});
export const AckAnswer = Type.Object({
  message: Type.String(), registered: Type.Integer(), rejected: Type.Integer(), claims: Type.Integer(), unmatched: Type.Array(Type.String()),
});

export const ClaimBody = Strict({
  work: Uuid, claimant: Text(200, { minLength: 1 }), claimantIpi: Type.Optional(Nullable(Ipi)), society: Type.Optional(Nullable(Society)),
  right: Type.Optional(lit(CLAIM_RIGHTS)), share: Type.Optional(Nullable(Share())), note: Type.Optional(Nullable(Text(2000))), registration: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
});
export const ClaimPatch = Strict({ claimant: Type.Optional(Text(200, { minLength: 1 })), claimantIpi: Type.Optional(Nullable(Ipi)), society: Type.Optional(Nullable(Society)), right: Type.Optional(lit(CLAIM_RIGHTS)), share: Type.Optional(Nullable(Share())), note: Type.Optional(Nullable(Text(2000))) });
export const ClaimStatusBody = Strict({ status: lit(CLAIM_STATUSES), note: Type.Optional(Nullable(Text(2000))) });
export const ClaimListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(CLAIM_SORT, 'createdAt', "Part of the claimant's name or IPI, or the note"), work: Type.Optional(Uuid), status: Type.Optional(lit(CLAIM_STATUSES)) });
export const ClaimView = Type.Object({
  id: Uuid, work: Uuid, registration: Nullable(Uuid), claimant: Type.String(), claimantIpi: Nullable(Type.String()), society: Nullable(Type.String()), right: lit(CLAIM_RIGHTS),
  share: Nullable(Dec), status: lit(CLAIM_STATUSES), note: Nullable(Type.String()), createdAt: Stamp, updatedAt: Stamp,
});

export { Pagination };
