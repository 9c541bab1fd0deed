/** E-mail templates, e-mail settings, e-mail domains (admin+). docs/email.md. */
import type Router from '@koa/router';
import { dataRoute, defineRoutes, route, type HandlerArgs } from '../../http/route';
import { Email, Strict, Type, Uuid, type Static, type TSchema } from '../../http/schema';
import type { AppServices } from '../../services';
import { getTemplate, listTemplates, previewTemplate, resetTemplate, saveTemplate } from './service';
import { getEmailSettings, saveEmailSettings } from './settings';
import { addEmailDomain, getEmailDomain, listEmailDomains, removeEmailDomain, verifyEmailDomain } from './domains';
import { TEMPLATE_TYPES, type TemplateType } from './templates';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const Done = Type.Object({ success: Type.Literal(true), message: Type.String() });

const TemplateTypeSchema = Type.Union(TEMPLATE_TYPES.map((t) => Type.Literal(t)));
const TypeParam = Type.Object({ type: TemplateTypeSchema });
const Template = Type.Object({
  type: TemplateTypeSchema,
  description: Type.String(),
  placeholders: Type.Array(Type.String({ examples: ['workspace.name'] })),
  customised: Type.Boolean({ description: 'false: the built-in template is in force' }),
  subject: Type.String(),
  text: Type.String(),
  html: Nullable(Type.String({ description: 'null: derived from the text' })),
  updatedAt: Nullable(Type.String({ format: 'date-time' })),
});
const TemplateBody = Strict({ subject: Type.String({ minLength: 1, maxLength: 500 }), text: Type.String({ minLength: 1, maxLength: 20_000 }), html: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))) });
const PreviewBody = Strict({
  subject: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  text: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000 })),
  html: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))),
  data: Type.Optional(Type.Record(Type.String({ maxLength: 50 }), Type.Record(Type.String({ maxLength: 50 }), Nullable(Type.Union([Type.String({ maxLength: 2000 }), Type.Integer({ minimum: -1e15, maximum: 1e15 })]))), { maxProperties: 30 })),
});
const Rendered = Type.Object({ subject: Type.String(), text: Type.String(), html: Type.String() });

const Smtp = Type.Object({ host: Type.String(), port: Type.Integer(), secure: Type.Boolean(), username: Nullable(Type.String()), passwordSet: Type.Boolean({ description: 'the password itself is never shown' }) });
const Settings = Type.Object({ fromName: Nullable(Type.String()), fromEmail: Nullable(Type.String()), replyTo: Nullable(Type.String()), smtp: Nullable(Smtp) });
const SettingsBody = Strict(
  {
    fromName: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    fromEmail: Type.Optional(Nullable(Email)),
    replyTo: Type.Optional(Nullable(Email)),
    smtp: Type.Optional(
      Nullable(
        Strict({
          host: Type.String({ minLength: 1, maxLength: 253 }),
          port: Type.Integer({ minimum: 1, maximum: 65535 }),
          secure: Type.Optional(Type.Boolean()),
          username: Type.Optional(Nullable(Type.String({ maxLength: 320 }))),
          password: Type.Optional(Type.String({ maxLength: 1000 })),
        }),
      ),
    ),
  },
  { minProperties: 1 },
);

const DnsRecord = Type.Object({ purpose: Type.Union([Type.Literal('verification'), Type.Literal('dkim'), Type.Literal('spf')]), type: Type.Literal('TXT'), name: Type.String(), value: Type.String() });
const EmailDomain = Type.Object({
  id: Uuid,
  domain: Type.String({ examples: ['mail.example.com'] }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified')]),
  selector: Type.String({ examples: ['rondo20261124'] }),
  records: Type.Array(DnsRecord),
  checks: Nullable(Type.Object({ verification: Type.Boolean(), dkim: Type.Boolean(), spf: Type.Boolean() })),
  verifiedAt: Nullable(Type.String({ format: 'date-time' })),
  checkedAt: Nullable(Type.String({ format: 'date-time' })),
  lastError: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
});
const DomainParams = Type.Object({ domainId: Uuid });

/** A route on one e-mail type (admin): `/settings/email-templates/:type<suffix>`, answering `{success: true, data}`. */
function templateRoute<B extends TSchema | undefined>(
  method: 'get' | 'put' | 'delete' | 'post', suffix: string, summary: string, body: B, data: TSchema,
  run: (args: HandlerArgs<B extends TSchema ? Static<B> : undefined, unknown, unknown>, type: TemplateType) => Promise<unknown>,
) {
  return dataRoute({
    method, path: `/settings/email-templates/:type${suffix}`, summary, access: 'admin', params: TypeParam, ...(body ? { body } : {}), data,
    run: (args) => run(args as never, args.params.type as TemplateType),
  });
}

export function registerEmailRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'E-mail', errorShape: 'catalogue' }, [
    dataRoute({
      method: 'get', path: '/settings/email-templates', summary: 'Every e-mail type with the template in force (the workspace\'s, else the built-in one) and its placeholders', access: 'admin',
      data: Type.Array(Template),
      run: ({ trx }) => listTemplates(trx),
    }),
    templateRoute('get', '', 'One e-mail template in force', undefined, Template, ({ trx }, type) => getTemplate(trx, type)),
    templateRoute('put', '', 'Save the workspace\'s template (subject, text, optional html with {{placeholders}}); an unknown placeholder is a 400', TemplateBody, Template,
      ({ trx, tenantId, body }, type) => saveTemplate(trx, tenantId, type, body)),
    templateRoute('delete', '', 'Back to the built-in template', undefined, Template, ({ trx }, type) => resetTemplate(trx, type)),
    templateRoute('post', '/preview', 'Render the given (else the stored) template with sample data, `data` over it; nothing is sent or saved', PreviewBody, Rendered,
      ({ trx, tenantId, body }, type) => previewTemplate(svc, trx, tenantId, type, body)),
    dataRoute({
      method: 'get', path: '/settings/email', summary: 'E-mail settings: sender name and address, reply-to, SMTP override (its password never shown)', access: 'admin',
      data: Settings,
      run: ({ trx, tenantId }) => getEmailSettings(trx, tenantId),
    }),
    dataRoute({
      method: 'put', path: '/settings/email', summary: 'Change the e-mail settings (fields given are saved, null clears; the SMTP password stays unless a new one is given)', access: 'admin', body: SettingsBody,
      data: Settings,
      run: ({ trx, tenantId, body }) => saveEmailSettings(svc, trx, tenantId, body),
    }),
  ]);
  defineRoutes(router, svc, { tag: 'E-mail domains', errorShape: 'catalogue' }, [
    dataRoute({
      method: 'post', path: '/email-domains', summary: 'Add a sender domain: a DKIM key is generated and the answer lists the DNS records to publish', access: 'admin', feature: 'email_domains',
      body: Strict({ domain: Type.String({ minLength: 1, maxLength: 253 }) }), status: 201,
      data: EmailDomain,
      run: ({ trx, tenantId, body }) => addEmailDomain(svc, trx, tenantId, body.domain),
    }),
    dataRoute({
      method: 'get', path: '/email-domains', summary: "The workspace's e-mail domains with their DNS records", access: 'admin', feature: 'email_domains',
      data: Type.Array(EmailDomain),
      run: ({ trx, tenantId }) => listEmailDomains(svc, trx, tenantId),
    }),
    dataRoute({
      method: 'get', path: '/email-domains/:domainId', summary: 'One e-mail domain', access: 'admin', feature: 'email_domains', params: DomainParams,
      data: EmailDomain,
      run: ({ trx, tenantId, params }) => getEmailDomain(svc, trx, tenantId, params.domainId),
    }),
    dataRoute({
      method: 'post', path: '/email-domains/:domainId/verify', summary: 'Look the records up: ownership and DKIM found → verified (mail is then sent from and DKIM-signed for the domain); `checks` says what was found', access: 'admin', feature: 'email_domains', params: DomainParams,
      data: EmailDomain,
      run: ({ trx, tenantId, params }) => verifyEmailDomain(svc, trx, tenantId, params.domainId, svc.dns),
    }),
    route({
      method: 'delete', path: '/email-domains/:domainId', summary: 'Remove an e-mail domain (its key is deleted; a sender address on it falls back to the default)', access: 'admin', feature: 'email_domains', params: DomainParams,
      responses: { 200: Done },
      async handler({ trx, tenantId, params }) {
        await removeEmailDomain(trx, tenantId, params.domainId);
        return { success: true, message: 'E-mail domain removed' };
      },
    }),
  ]);
}
