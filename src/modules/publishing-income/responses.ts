/**
 * The success answers of this area's routes (their `responses`): the OpenAPI document and the
 * web app's generated types (npm run web:types). Tests check every JSON answer against them.
 */
import { Type, FileAnswer } from '../../http/schema';

export const GetPublisherStatementsByIdPdf = FileAnswer('application/pdf', 'The publisher statement as PDF (attachment)');
export const GetPublisherStatementsByIdCsv = FileAnswer('text/csv', 'The publisher statement as CSV (attachment)');
