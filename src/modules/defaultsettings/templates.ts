/**
 * Built-in templates every workspace can apply (read-only; a workspace copies one into a
 * template of its own to change it). Ids are stable keys, not uuids.
 */
import type { SettingInput } from './keys';

const EUROPE = ['AT', 'BE', 'BG', 'CH', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GB', 'GR', 'HR', 'HU', 'IE', 'IS', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'NO', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK'];

/** The deal settings of a template: where, and streaming with or without downloads. */
function deals(territories: string[], downloads: boolean): SettingInput[] {
  return [
    { category: 'ddex', key: 'territories', value: territories },
    { category: 'ddex', key: 'commercialModels', value: ['SubscriptionModel', 'AdvertisementSupportedModel', ...(downloads ? ['PayAsYouGoModel'] : [])] },
    { category: 'ddex', key: 'useTypes', value: ['OnDemandStream', 'NonInteractiveStream', ...(downloads ? ['PermanentDownload'] : [])] },
  ];
}

export const BUILTIN_TEMPLATES: { id: string; name: string; description: string; settings: SettingInput[]; created_at: null; updated_at: null }[] = [
  {
    id: 'builtin-worldwide-digital',
    name: 'Worldwide digital',
    description: 'Every territory; streaming (subscription and ad-supported) and download deals',
    settings: deals(['Worldwide'], true),
    created_at: null,
    updated_at: null,
  },
  {
    id: 'builtin-streaming-only',
    name: 'Streaming only',
    description: 'Every territory; subscription and ad-supported streaming, no downloads',
    settings: deals(['Worldwide'], false),
    created_at: null,
    updated_at: null,
  },
  {
    id: 'builtin-europe',
    name: 'Europe',
    description: 'The EU, the EEA, Switzerland and the United Kingdom; streaming and download deals',
    settings: deals(EUROPE, true),
    created_at: null,
    updated_at: null,
  },
  {
    id: 'builtin-strict-delivery',
    name: 'Strict delivery checks',
    description: 'ERN generation refuses releases without a release date or without processed audio on every track',
    settings: [
      { category: 'validation', key: 'requireReleaseDate', value: true },
      { category: 'validation', key: 'requireTrackMedia', value: true },
    ],
    created_at: null,
    updated_at: null,
  },
];
