/**
 * Which channels a notification goes out on, from the recipient's preferences: the type's own
 * setting for the channel, else off for a quiet type's external channels, else the member's
 * setting for the channel, else the default (in-app and e-mail on, SMS and push off). Pure.
 */
export const CHANNELS = ['inApp', 'email', 'sms', 'push'] as const;
export type Channel = (typeof CHANNELS)[number];
/** The channels deliveries go out on (in-app is the notification itself). */
export type ExternalChannel = Exclude<Channel, 'inApp'>;
export const EXTERNAL_CHANNELS: readonly ExternalChannel[] = ['email', 'sms', 'push'];

export const DEFAULT_CHANNELS: Record<Channel, boolean> = { inApp: true, email: true, sms: false, push: false };

/**
 * Quiet types: a member's own actions (creating a release or a track) are not e-mailed, texted
 * or pushed unless the member turns the channel on for that type.
 */
export const QUIET_TYPES: Readonly<Record<string, Partial<Record<ExternalChannel, false>>>> = {
  'release.created': { email: false, sms: false, push: false },
  'track.created': { email: false, sms: false, push: false },
};

export interface StoredPreferences {
  channels?: Partial<Record<string, boolean>> | null;
  types?: Record<string, Partial<Record<string, boolean>>> | null;
}

export function channelAllowed(p: StoredPreferences | undefined, type: string, channel: Channel): boolean {
  const own = p?.types?.[type]?.[channel];
  if (typeof own === 'boolean') return own;
  if (channel !== 'inApp' && QUIET_TYPES[type]?.[channel] === false) return false;
  const general = p?.channels?.[channel];
  return typeof general === 'boolean' ? general : DEFAULT_CHANNELS[channel];
}
