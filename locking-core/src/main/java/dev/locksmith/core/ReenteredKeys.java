package dev.locksmith.core;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The keys of a call over several keys whose leases the calling thread already holds, each with a
 * hold taken on it, found on that thread so that the rest may be taken on another (a reactive
 * result's acquisition runs on the engine's threads, which hold nothing).
 */
final class ReenteredKeys {
  /** Per key, in lock order: the lease reentered, or {@code null} for a key still to take. */
  private final @Nullable ActiveLease[] slots;

  private final List<Runnable> holds;

  private ReenteredKeys(@Nullable ActiveLease[] slots, List<Runnable> holds) {
    this.slots = slots;
    this.holds = holds;
  }

  /** Finds, on the calling thread, which of the options' keys it holds through {@code provider}. */
  static ReenteredKeys find(Object provider, LockOptions options) {
    List<String> keys = options.keys();
    @Nullable ActiveLease[] slots = new ActiveLease[keys.size()];
    List<Runnable> holds = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      ActiveLease held = HeldLeases.find(provider, options.withKey(keys.get(i)).lockId());
      if (held != null) {
        slots[i] = held;
        holds.add(held.retain());
      }
    }
    return new ReenteredKeys(slots, holds);
  }

  /** The lease reentered for the key at {@code index}, or {@code null}. */
  @Nullable ActiveLease at(int index) {
    return slots[index];
  }

  /** Whether the thread holds every key. */
  boolean all() {
    return holds.size() == slots.length;
  }

  /** The holds taken, which the call's lease drops when it ends. */
  List<Runnable> holds() {
    return holds;
  }

  /** Drops every hold: the call was given up. Running it again, or a hold again, does nothing. */
  void drop() {
    holds.forEach(Runnable::run);
  }
}
