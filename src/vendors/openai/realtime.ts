import type { RealtimeCodec } from '../../core/contracts/realtime-codec.ts';
import { mapOpenAIError } from './errors.ts';

/**
 * Realtime over WebSocket for the OpenAI family (protocols.md §2.9): the provider's base URL with
 * `ws(s)://`, `/realtime?model=<upstream model>`, the upstream key as a Bearer header. The GA
 * interface by default; a provider whose server only knows the older beta interface sets
 * `settings.realtime_api: "beta"`, and the handshake then carries `OpenAI-Beta: realtime=v1`.
 */
export const openaiRealtime: RealtimeCodec = {
  handshake(target) {
    const url = new URL(target.baseUrl.replace(/\/+$/, '') + '/realtime');
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('model', target.upstreamModel);
    const generation = target.settings.realtime_api === 'beta' ? 'beta' : 'ga';
    const headers: Record<string, string> = { authorization: `Bearer ${target.apiKey}` };
    if (generation === 'beta') headers['openai-beta'] = 'realtime=v1';
    return { url: url.toString(), headers, protocols: [], generation };
  },
  mapError: mapOpenAIError,
};
