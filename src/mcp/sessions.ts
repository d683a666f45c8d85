/**
 * The session table of the MCP HTTP face: sessions are owned by a tenant (an API key, or the
 * anonymous loopback user), counted against a per-tenant quota and a table-wide cap, and never
 * evicted while a call is in flight. A tenant only ever makes room by closing its own idle sessions;
 * when it cannot, the newcomer is refused. See docs/decisions/011-one-access-rule.md.
 */

/** What the table needs of a session. */
export interface SessionLike {
  /** `tools/call` requests in progress: a busy session is never evicted. */
  callsInFlight(): number;
  /** When the session was last used (`Date.now()`). */
  lastActive(): number;
  close(): Promise<void>;
}

/** Limits of a {@link SessionTable}. */
export interface SessionLimits {
  /** Most sessions in the table. */
  maxSessions: number;
  /** Most sessions one tenant may hold. */
  maxSessionsPerKey: number;
}

/** Why a new session was refused: the tenant's quota, or the whole table, is full of busy sessions. */
export type SessionRefusal = 'tenant-full' | 'table-full';

/** A place held in the table for a session being initialized. */
export interface Reservation<S> {
  /** The initialize succeeded: the session takes the reserved place. */
  commit(id: string, session: S): void;
  /** No session came of it: the place is freed. Idempotent; a no-op after `commit`. */
  release(): void;
}

interface Entry<S> {
  tenant: string;
  session: S;
  touched: number;
}

/** Sessions by id, each owned by one tenant. */
export class SessionTable<S extends SessionLike> {
  readonly #limits: SessionLimits;
  readonly #sessions = new Map<string, Entry<S>>();
  /** Reserved places by tenant (initialize requests in progress). */
  readonly #pending = new Map<string, number>();
  #pendingTotal = 0;

  constructor(limits: SessionLimits) {
    this.#limits = limits;
  }

  /** Live sessions (reservations not counted). */
  get size(): number {
    return this.#sessions.size;
  }

  /** The session `id` when `tenant` owns it; another tenant's session is invisible (undefined). */
  get(id: string, tenant: string): S | undefined {
    const entry = this.#sessions.get(id);
    if (!entry || entry.tenant !== tenant) return undefined;
    entry.touched = Date.now();
    return entry.session;
  }

  /** Forgets a session (it closed itself). */
  delete(id: string): void {
    this.#sessions.delete(id);
  }

  /**
   * Holds a place for a new session of `tenant`. When the tenant's quota or the table is full, the
   * tenant's own least recently used idle session is closed to make room; if it has none, the
   * newcomer is refused. Other tenants' sessions are never touched.
   */
  reserve(tenant: string): Reservation<S> | SessionRefusal {
    const owned = (): number =>
      [...this.#sessions.values()].filter((e) => e.tenant === tenant).length +
      (this.#pending.get(tenant) ?? 0);
    const full = (): SessionRefusal | undefined =>
      owned() >= this.#limits.maxSessionsPerKey
        ? 'tenant-full'
        : this.#sessions.size + this.#pendingTotal >= this.#limits.maxSessions
          ? 'table-full'
          : undefined;
    for (let why = full(); why !== undefined; why = full()) {
      if (!this.#evictIdle(tenant)) return why;
    }
    this.#pending.set(tenant, (this.#pending.get(tenant) ?? 0) + 1);
    this.#pendingTotal += 1;
    let open = true;
    const unreserve = (): boolean => {
      if (!open) return false;
      open = false;
      this.#pendingTotal -= 1;
      const left = (this.#pending.get(tenant) ?? 1) - 1;
      if (left > 0) this.#pending.set(tenant, left);
      else this.#pending.delete(tenant);
      return true;
    };
    return {
      commit: (id, session) => {
        if (unreserve()) this.#sessions.set(id, { tenant, session, touched: Date.now() });
      },
      release: () => void unreserve(),
    };
  }

  /** Closes every idle session unused since `cutoff` (`Date.now()` time). Busy sessions stay. */
  sweep(cutoff: number): void {
    for (const [id, e] of this.#sessions)
      if (this.#idle(e) && this.#lastUsed(e) < cutoff) this.#close(id, e);
  }

  /** Closes every session (busy ones too: their calls are aborted). */
  async closeAll(): Promise<void> {
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(all.map((e) => e.session.close()));
  }

  #idle(e: Entry<S>): boolean {
    return e.session.callsInFlight() === 0;
  }

  #lastUsed(e: Entry<S>): number {
    return Math.max(e.touched, e.session.lastActive());
  }

  #close(id: string, e: Entry<S>): void {
    this.#sessions.delete(id);
    void e.session.close().catch(() => {
      // a session that fails to close is gone from the table all the same
    });
  }

  /** Closes the tenant's least recently used idle session; false when it has none. */
  #evictIdle(tenant: string): boolean {
    let oldest: [string, Entry<S>] | undefined;
    for (const [id, e] of this.#sessions)
      if (e.tenant === tenant && this.#idle(e))
        if (!oldest || this.#lastUsed(e) < this.#lastUsed(oldest[1])) oldest = [id, e];
    if (!oldest) return false;
    this.#close(oldest[0], oldest[1]);
    return true;
  }
}
