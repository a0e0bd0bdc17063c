// The phone's outbox. Every move gets an Idempotency-Key made here and the table version it was
// entered against; it is kept in localStorage until the server answers, so a dropped
// connection, a reload or a closed tab loses nothing, and a retry is never stored twice.
//
// States the page shows: live (nothing waiting), offline (the last try got no answer),
// k pending (entries waiting to be sent).

import { Refusal, Unreachable, call, newKey, recordingToken } from './api.js';

export class MoveQueue {
  constructor(table, handlers) {
    this.table = table;
    this.handlers = handlers; // { answered(item, body), refused(item, err), conflict(items, err), changed() }
    this.storageKey = `tk.queue.${table}`;
    this.items = JSON.parse(localStorage.getItem(this.storageKey) || '[]');
    this.offline = false;
    this.sending = false;
    this.retryDelay = 1000;
    this.timer = null;
    this.onOnline = () => this.flush();
    window.addEventListener('online', this.onOnline);
  }

  close() {
    window.removeEventListener('online', this.onOnline);
    clearTimeout(this.timer);
  }

  save() {
    localStorage.setItem(this.storageKey, JSON.stringify(this.items));
    this.handlers.changed?.();
  }

  get pending() {
    return this.items.length;
  }

  /// Queues a move (path `moves` or `undo`) entered against `version`, and sends it.
  add(path, body, label, version) {
    const item = {
      key: newKey(),
      path,
      body: { ...body, expected_version: version + this.items.length },
      label,
      at: new Date().toISOString(),
    };
    this.items.push(item);
    this.save();
    this.flush();
    return item;
  }

  /// Forgets everything waiting (after a conflict or a refusal the rest is stale).
  drop() {
    const gone = this.items;
    this.items = [];
    this.save();
    return gone;
  }

  retryNow() {
    clearTimeout(this.timer);
    this.retryDelay = 1000;
    return this.flush();
  }

  async flush() {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.items.length) {
        const item = this.items[0];
        let body;
        try {
          body = await call('POST', `/tables/${this.table}/${item.path}`, {
            token: recordingToken(this.table),
            body: item.body,
            headers: { 'Idempotency-Key': item.key },
          });
        } catch (err) {
          if (err instanceof Unreachable) {
            this.offline = true;
            this.handlers.changed?.();
            this.schedule();
            return;
          }
          if (err instanceof Refusal) {
            this.offline = false;
            if (err.code === 'version_conflict') {
              this.handlers.conflict?.(this.drop(), err);
            } else {
              // The entry is refused; later entries were made on top of it: drop them too.
              const rest = this.drop();
              this.handlers.refused?.(rest[0], err, rest.slice(1));
            }
            return;
          }
          throw err;
        }
        this.offline = false;
        this.retryDelay = 1000;
        this.items.shift();
        this.save();
        this.handlers.answered?.(item, body);
      }
    } finally {
      this.sending = false;
    }
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, 8000);
  }
}
