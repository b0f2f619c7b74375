// One simulated realtime session (protocols.md §2.9): session.created on connect, then the
// client events of either generation answered with the vendor's event sequences: input audio
// buffer and simulated server VAD, conversation items, responses with text or audio deltas and a
// response.done carrying usage; response.cancel; errors worded like the vendor's.
import { WebSocket } from 'ws';
import { countTokens, finishText, snippet, splitIntoChunks, withFiller } from '../text.ts';
import { Conversation, inputAudioTokens, newSimId, outputAudioTokens, readDirectives, usageJson, type SimItem } from './conversation.ts';
import {
  allowedPartTypes, applySessionUpdate, defaultConfig, eventName, isObject, outputPartType, readResponseParams, renderResponse, renderSession,
  type Generation, type Json, type ResponseOverrides, type SimConfig, type WireError,
} from './wire.ts';

/** the simulator waits for its socket to drain past this many buffered bytes */
const HIGH_WATER = 1024 * 1024;
const BIG_AUDIO_BYTES = 64 * 1024;
/** 100 ms of 24 kHz PCM16 per spoken word */
const AUDIO_BYTES_PER_WORD = 4_800;
const DEFAULT_WORDS = 12;

interface Running {
  id: string;
  cancelled: boolean;
  wake: (() => void) | undefined;
}

export interface SimSessionHooks {
  /** every client event, parsed (audio payloads replaced by their length) */
  received(event: Json): void;
  /** after each send: the socket's buffered amount */
  buffered(amount: number): void;
}

export class SimRealtimeSession {
  private readonly socket: WebSocket;
  private readonly generation: Generation;
  private readonly model: string;
  private readonly hooks: SimSessionHooks;
  private readonly config: SimConfig = defaultConfig();
  private readonly conversation = new Conversation();
  private readonly sessionId = newSimId('sess');
  private bufferBytes = 0;
  private speechItem: string | undefined;
  private running: Running | undefined;

  constructor(socket: WebSocket, generation: Generation, model: string, hooks: SimSessionHooks) {
    this.socket = socket;
    this.generation = generation;
    this.model = model;
    this.hooks = hooks;
  }

  start(): void {
    void this.send({ type: 'session.created', session: this.session() });
  }

  onMessage(text: string): void {
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch {
      return this.error('invalid_json', 'We could not parse the JSON body of your event.', null, null);
    }
    if (!isObject(event) || typeof event.type !== 'string') return this.error('invalid_event', "Missing required parameter: 'type'.", 'type', null);
    const eventId = typeof event.event_id === 'string' ? event.event_id : null;
    this.hooks.received(typeof event.audio === 'string' ? { ...event, audio: `<${event.audio.length} chars>` } : event);
    switch (event.type) {
      case 'session.update':
        return this.sessionUpdate(event, eventId);
      case 'input_audio_buffer.append':
        return this.append(event, eventId);
      case 'input_audio_buffer.commit':
        return this.commitBuffer(eventId);
      case 'input_audio_buffer.clear':
        this.bufferBytes = 0;
        this.speechItem = undefined;
        return void this.send({ type: 'input_audio_buffer.cleared' });
      case 'conversation.item.create':
        return this.createItem(event, eventId);
      case 'conversation.item.delete': {
        const id = String(event.item_id);
        if (!this.conversation.remove(id)) return this.error('item_not_found', `Item with item_id '${id}' not found.`, 'item_id', eventId);
        return void this.send({ type: 'conversation.item.deleted', item_id: id });
      }
      case 'response.create':
        return this.responseCreate(event, eventId);
      case 'response.cancel':
        return this.cancel(event, eventId);
      default:
        return this.error('invalid_value', `Invalid value: '${event.type}'. Supported values are: 'session.update', 'input_audio_buffer.append', 'input_audio_buffer.commit', 'input_audio_buffer.clear', 'conversation.item.create', 'conversation.item.delete', 'response.create', and 'response.cancel'.`, 'type', eventId);
    }
  }

  private session(): Json {
    return renderSession(this.config, { id: this.sessionId, model: this.model, expiresAt: Math.floor(Date.now() / 1000) + 3600 }, this.generation);
  }

  private sessionUpdate(event: Json, eventId: string | null): void {
    if (!isObject(event.session)) return this.error('invalid_type', "Invalid type for 'session': expected an object.", 'session', eventId);
    const failure = applySessionUpdate(this.config, event.session, this.generation);
    if (failure) return this.wireError(failure, eventId);
    void this.send({ type: 'session.updated', session: this.session() });
  }

  private append(event: Json, eventId: string | null): void {
    if (typeof event.audio !== 'string') return this.error('missing_required_parameter', "Missing required parameter: 'audio'.", 'audio', eventId);
    const silence = /^A*=*$/.test(event.audio);
    const vad = this.config.turnDetection;
    if (vad && !this.speechItem && !silence) {
      this.speechItem = newSimId('item');
      void this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: this.bufferMs(), item_id: this.speechItem });
    }
    this.bufferBytes += Math.floor((event.audio.length * 3) / 4);
    if (vad && this.speechItem && silence) {
      const itemId = this.speechItem;
      this.speechItem = undefined;
      void this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: this.bufferMs(), item_id: itemId });
      this.commitAudio(itemId);
      if (vad.create_response !== false && !this.running) void this.respond({});
    }
  }

  private bufferMs(): number {
    return Math.round(this.bufferBytes / (this.config.inputFormat === 'pcm16' ? 48 : 8));
  }

  private commitBuffer(eventId: string | null): void {
    if (this.bufferBytes === 0) {
      return this.error('input_audio_buffer_commit_empty', 'Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has 0.00ms of audio.', null, eventId);
    }
    const itemId = this.speechItem ?? newSimId('item');
    this.speechItem = undefined;
    this.commitAudio(itemId);
  }

  private commitAudio(itemId: string): void {
    const previous = this.conversation.lastId;
    const item: SimItem = { id: itemId, role: 'user', text: '', textTokens: 0, audioTokens: inputAudioTokens(this.bufferBytes, this.config.inputFormat) };
    this.bufferBytes = 0;
    this.conversation.add(item);
    void this.send({ type: 'input_audio_buffer.committed', previous_item_id: previous, item_id: itemId });
    this.announceItem({ id: itemId, object: 'realtime.item', type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_audio', transcript: null }] }, previous);
  }

  private createItem(event: Json, eventId: string | null): void {
    const item = event.item;
    if (!isObject(item)) return this.error('missing_required_parameter', "Missing required parameter: 'item'.", 'item', eventId);
    const id = typeof item.id === 'string' ? item.id : newSimId('item');
    const role = typeof item.role === 'string' ? item.role : '';
    let text = '';
    let textTokens = 0;
    let audioTokens = 0;
    if (item.type === 'message') {
      const allowed = allowedPartTypes(this.generation, role);
      const parts = Array.isArray(item.content) ? item.content : [];
      for (const [index, part] of parts.entries()) {
        if (!isObject(part) || !allowed.includes(String(part.type))) {
          const got = isObject(part) ? String(part.type) : typeof part;
          return this.error('invalid_value', `Invalid value: '${got}'. Supported values are: ${allowed.map((t) => `'${t}'`).join(', ')}.`, `item.content[${index}].type`, eventId);
        }
        if (typeof part.text === 'string') text += part.text;
        if (typeof part.audio === 'string') audioTokens += inputAudioTokens(Math.floor((part.audio.length * 3) / 4), this.config.inputFormat);
      }
      textTokens = countTokens(text) + 4;
    } else if (item.type === 'function_call_output') {
      text = String(item.output ?? '');
      textTokens = countTokens(text) + 4;
    } else {
      return this.error('invalid_value', `Invalid value: '${String(item.type)}'. Supported values are: 'message', 'function_call', and 'function_call_output'.`, 'item.type', eventId);
    }
    const previous = this.conversation.lastId;
    this.conversation.add({ id, role, text, textTokens, audioTokens });
    const rendered: Json = { ...item, id, object: 'realtime.item', status: 'completed' };
    if (Array.isArray(item.content)) rendered.content = item.content.map((p) => (isObject(p) && typeof p.audio === 'string' ? { ...p, audio: undefined, transcript: null } : p));
    this.announceItem(rendered, previous);
  }

  /** conversation.item.created (beta) or conversation.item.added + conversation.item.done (GA) */
  private announceItem(item: Json, previous: string | null): void {
    void this.send({ type: eventName('conversation.item.added', this.generation), previous_item_id: previous, item });
    if (this.generation === 'ga') void this.send({ type: 'conversation.item.done', previous_item_id: previous, item });
  }

  private responseCreate(event: Json, eventId: string | null): void {
    let overrides: ResponseOverrides = {};
    if (event.response !== undefined) {
      if (!isObject(event.response)) return this.error('invalid_type', "Invalid type for 'response': expected an object.", 'response', eventId);
      const read = readResponseParams(event.response, this.generation);
      if ('message' in read) return this.wireError(read, eventId);
      overrides = read;
    }
    if (this.running) {
      return this.error('conversation_already_has_active_response', `Conversation already has an active response in progress: ${this.running.id}. Wait until the response is finished before creating a new one.`, null, eventId);
    }
    void this.respond(overrides);
  }

  private cancel(event: Json, eventId: string | null): void {
    const running = this.running;
    if (!running || (typeof event.response_id === 'string' && event.response_id !== running.id)) {
      return this.error('response_cancel_not_active', 'Cancellation failed: no active response found.', null, eventId);
    }
    running.cancelled = true;
    running.wake?.();
  }

  private async respond(overrides: ResponseOverrides): Promise<void> {
    const audioOut = overrides.audioOut ?? this.config.audioOut;
    const maxTokens = overrides.maxOutputTokens ?? this.config.maxOutputTokens;
    const outOfBand = overrides.conversation === 'none';
    const directives = readDirectives(this.conversation.lastUserText());
    const input = this.conversation.input(overrides.instructions ?? this.config.instructions, outOfBand, overrides.input);
    const running: Running = { id: newSimId('resp'), cancelled: false, wake: undefined };
    this.running = running;
    const meta = { id: running.id, audioOut, maxOutputTokens: maxTokens, statusDetails: null };
    await this.send({ type: 'response.created', response: renderResponse({ ...meta, status: 'in_progress', output: [], usage: null }, this.config, this.generation) });
    if (directives.close !== undefined) {
      this.socket.close(directives.close, 'simulated upstream close');
      return;
    }

    const userText = this.conversation.lastUserText();
    const heardTokens = this.conversation.lastUserAudioTokens();
    const opening = heardTokens > 0 && userText === '' ? `I heard ${heardTokens} tokens of audio.` : `Echo: ${snippet(userText, 40)}`;
    const full = withFiller(opening, directives.words ?? DEFAULT_WORDS);
    const text = finishText(full, [], typeof maxTokens === 'number' ? maxTokens : undefined).text;
    const itemId = newSimId('item');
    const kind = audioOut ? 'audio' : 'text';
    const previous = outOfBand ? null : this.conversation.lastId;
    const item: Json = { id: itemId, object: 'realtime.item', type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    const where = { response_id: running.id, item_id: itemId, output_index: 0, content_index: 0 };
    await this.send({ type: 'response.output_item.added', response_id: running.id, output_index: 0, item });
    if (!outOfBand) await this.send({ type: eventName('conversation.item.added', this.generation), previous_item_id: previous, item });
    await this.send({ type: 'response.content_part.added', ...where, part: audioOut ? { type: 'audio', transcript: '' } : { type: 'text', text: '' } });

    let audioBytes = 0;
    const big = Buffer.alloc(BIG_AUDIO_BYTES, 1).toString('base64');
    for (let i = 0; i < directives.bigAudio && !running.cancelled; i++) {
      await this.send({ type: eventName('response.output_audio.delta', this.generation), ...where, delta: big });
      audioBytes += BIG_AUDIO_BYTES;
      // one frame per turn of the event loop: the send buffer grows only when the peer stops reading
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    let delivered = '';
    const words = splitIntoChunks(text, Number.MAX_SAFE_INTEGER);
    for (const [index, word] of words.entries()) {
      if (running.cancelled) break;
      if (audioOut) {
        await this.send({ type: eventName('response.output_audio.delta', this.generation), ...where, delta: Buffer.alloc(AUDIO_BYTES_PER_WORD, index + 1).toString('base64') });
        audioBytes += AUDIO_BYTES_PER_WORD;
        await this.send({ type: eventName('response.output_audio_transcript.delta', this.generation), ...where, delta: word });
      } else {
        await this.send({ type: eventName('response.output_text.delta', this.generation), ...where, delta: word });
      }
      delivered += word;
      if (directives.hold && index === 0 && !running.cancelled) await new Promise<void>((resolve) => (running.wake = resolve));
      // let client events (a cancel) in between deltas
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (this.socket.readyState !== WebSocket.OPEN) return;

    const status = running.cancelled ? 'cancelled' : directives.fail ? 'failed' : 'completed';
    if (audioOut) {
      await this.send({ type: eventName('response.output_audio.done', this.generation), ...where });
      await this.send({ type: eventName('response.output_audio_transcript.done', this.generation), ...where, transcript: delivered });
    } else {
      await this.send({ type: eventName('response.output_text.done', this.generation), ...where, text: delivered });
    }
    const part = audioOut ? { type: 'audio', transcript: delivered } : { type: 'text', text: delivered };
    await this.send({ type: 'response.content_part.done', ...where, part });
    const finished: Json = { ...item, status: status === 'completed' ? 'completed' : 'incomplete', content: [{ ...part, type: outputPartType(kind, this.generation) }] };
    await this.send({ type: 'response.output_item.done', response_id: running.id, output_index: 0, item: finished });
    if (this.generation === 'ga' && !outOfBand) await this.send({ type: 'conversation.item.done', previous_item_id: previous, item: finished });

    const output = { text: countTokens(delivered), audio: outputAudioTokens(audioBytes) };
    const usage = usageJson(input, directives.cached, output);
    const statusDetails = status === 'cancelled' ? { type: 'cancelled', reason: 'client_cancelled' } : status === 'failed' ? { type: 'failed', error: { type: 'server_error', code: 'simulated_failure' } } : null;
    if (!outOfBand) this.conversation.add({ id: itemId, role: 'assistant', text: delivered, textTokens: output.text, audioTokens: output.audio });
    this.running = undefined;
    await this.send({ type: 'response.done', response: renderResponse({ ...meta, statusDetails, status, output: [finished], usage }, this.config, this.generation) });
  }

  /** the socket closed: a response waiting on a directive stops */
  abort(): void {
    if (!this.running) return;
    this.running.cancelled = true;
    this.running.wake?.();
  }

  private wireError(failure: WireError, eventId: string | null): void {
    this.error(failure.code, failure.message, failure.param, eventId);
  }

  private error(code: string, message: string, param: string | null, eventId: string | null): void {
    void this.send({ type: 'error', error: { type: 'invalid_request_error', code, message, param, event_id: eventId } });
  }

  /** Sends one event; waits for the socket to drain when it holds more than HIGH_WATER bytes. */
  private send(event: Json): Promise<void> {
    if (this.socket.readyState !== WebSocket.OPEN) return Promise.resolve();
    const data = JSON.stringify({ type: event.type, event_id: newSimId('event'), ...event });
    if (this.socket.bufferedAmount + data.length <= HIGH_WATER) {
      this.socket.send(data);
      this.hooks.buffered(this.socket.bufferedAmount);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.socket.send(data, () => resolve());
      this.hooks.buffered(this.socket.bufferedAmount);
    });
  }
}
